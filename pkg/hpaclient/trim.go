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

package hpaclient

import "k8s.io/apimachinery/pkg/api/meta"

// DropManagedFields is the HPA informers' transform: it drops each
// object's managedFields, which the controller never reads and which can
// be as large as the rest of the HPA (kube-controller-manager's informers
// drop them too). The controller writes only the status subresource, for
// which the API server keeps the stored managedFields whatever the request
// carries, so a write from a trimmed copy loses none.
func DropManagedFields(obj any) (any, error) {
	if accessor, err := meta.Accessor(obj); err == nil && accessor.GetManagedFields() != nil {
		accessor.SetManagedFields(nil)
	}
	return obj, nil
}
