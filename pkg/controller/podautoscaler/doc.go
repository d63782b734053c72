// Package podautoscaler is kube-hpa's horizontal pod autoscaler controller:
// the reconcile loop of kube-controller-manager v1.36's HPA controller, split
// by responsibility, plus the fallback of KEP-5679 and the scale-to-zero of
// KEP-2021. The replica math lives in the calculator subpackage, the
// stabilization and rate limits in behavior, the metrics API clients in
// metrics and the Prometheus series in monitor; this package wires them
// into one pass over one HPA and keeps the queue.
package podautoscaler
