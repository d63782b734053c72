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
