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

package app

import (
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/discovery"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// errNoCRD is a start refused because the extended kind is not served.
var errNoCRD = errors.New("the CustomResourceDefinition " + v2.Resource + "." + v2.GroupName +
	" is not installed: apply deploy/crd/ (or install the chart, which carries it) and start again")

// checkCRD refuses to start on a cluster that does not serve the extended
// kind. Without it the HPA informer would wait for a cache sync that never
// comes, logging "could not find the requested resource" for two minutes;
// one line saying what to install is the operator's answer instead (also
// with --manage-native-hpas: see docs/migration.md).
func checkCRD(disc discovery.DiscoveryInterface) error {
	resources, err := disc.ServerResourcesForGroupVersion(v2.SchemeGroupVersion.String())
	if apierrors.IsNotFound(err) {
		return errNoCRD
	}
	if err != nil {
		return fmt.Errorf("looking for the %s API: %w", v2.SchemeGroupVersion, err)
	}
	for _, r := range resources.APIResources {
		if r.Name == v2.Resource {
			return nil
		}
	}
	return errNoCRD
}
