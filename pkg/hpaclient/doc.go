// Package hpaclient reads and writes the extended HorizontalPodAutoscaler
// kind (autoscaling.kube-hpa.io/v2) served by the CRD: a small typed REST
// client and a shared informer over it. It is hand-written rather than
// generated because the controller needs four verbs (list, watch, get,
// update status) and no generated clientset would be smaller.
package hpaclient
