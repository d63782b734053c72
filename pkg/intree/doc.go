// Package intree builds this project's HPA controller from what
// kube-controller-manager hands its horizontalpodautoscaling controller:
// its client configuration, clients, REST mapper, informer factory,
// component configuration, feature gate and legacy metrics registry. The
// in-tree patch (hack/intree/patches/kubernetes) calls it in place of
// upstream's controller, so that one implementation, pkg/controller/
// podautoscaler, serves both the standalone binary and a patched
// kube-controller-manager. It imports nothing of k8s.io/kubernetes, so
// the main module stays free of it.
package intree
