/*
Copyright The kube-hpa Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package v2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of the extended HorizontalPodAutoscaler kind.
const GroupName = "autoscaling.kube-hpa.io"

// SchemeGroupVersion is the group and version the types of this package are served at.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v2"}

// Resource is the plural resource name of the kind, as the API server serves it.
const Resource = "horizontalpodautoscalers"

// GroupVersionResource names the served resource, for dynamic and REST clients.
func GroupVersionResource() schema.GroupVersionResource {
	return SchemeGroupVersion.WithResource(Resource)
}

// AddToScheme registers the types of this package with a scheme. It is a
// function rather than a SchemeBuilder variable so that the package keeps no
// mutable state.
func AddToScheme(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion,
		&HorizontalPodAutoscaler{},
		&HorizontalPodAutoscalerList{},
	)
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}
