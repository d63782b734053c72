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

// Package v2 holds the extended autoscaling/v2 API served by kube-hpa as the
// HorizontalPodAutoscaler kind of the autoscaling.kube-hpa.io group.
//
// Its JSON is a superset of the native autoscaling/v2 API: a native manifest
// becomes an extended one by changing apiVersion alone. Structs that the
// extension leaves untouched are the upstream k8s.io/api/autoscaling/v2 types.
//
// +kubebuilder:object:generate=true
// +groupName=autoscaling.kube-hpa.io
package v2
