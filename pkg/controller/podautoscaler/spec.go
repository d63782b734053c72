package podautoscaler

import (
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"

	"github.com/kube-hpa/kube-hpa/pkg/apis/autoscaling/validation"
)

// reasonInvalidSpec is ours: upstream's API server never stores an invalid
// HPA, but a CRD object may predate the admission webhook.
const reasonInvalidSpec = "InvalidSpec"

// checkSpec refuses to act on an HPA that the API would not accept under
// the current feature gates. Gated fields that are merely switched off are
// not errors here (they are ignored where they are read), so that turning a
// gate off never stops an HPA that uses it.
func (p *pass) checkSpec() error {
	errs := validation.ValidateStored(p.hpa, p.c.opts.Gates)
	if len(errs) == 0 {
		return nil
	}
	msg := errs.ToAggregate().Error()
	p.event(corev1.EventTypeWarning, reasonInvalidSpec, "%s", msg)
	return p.failWith(
		newCondition(autoscalingv2.ScalingActive, corev1.ConditionFalse, reasonInvalidSpec, "the HPA spec is invalid: %s", msg),
		fmt.Errorf("invalid HPA spec: %s%w", msg, errSpec))
}
