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
