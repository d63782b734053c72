// Package webhook is the validating admission webhook of the extended HPA
// kind: it runs the same validator as the controller, with the process's
// feature gates, so that `kubectl apply` of an invalid HPA fails with the
// field path and the reason instead of being stored and ignored.
package webhook
