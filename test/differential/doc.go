// Package differential drives upstream Kubernetes v1.36.3's HPA code and
// kube-hpa's on the same generated scenarios and reports every difference a
// user could see that is not on the allow-list.
package differential
