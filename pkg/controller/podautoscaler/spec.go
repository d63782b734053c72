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
// An invalid spec ends the pass with the outcome returned.
func (p *pass) checkSpec() (out outcome, valid bool) {
	errs := validation.ValidateStored(p.hpa, p.c.opts.Gates)
	if len(errs) == 0 {
		return outcome{}, true
	}
	msg := errs.ToAggregate().Error()
	p.event(corev1.EventTypeWarning, reasonInvalidSpec, "%s", msg)
	return outcome{
		conds: []conditionEdit{set(newCondition(autoscalingv2.ScalingActive, corev1.ConditionFalse, reasonInvalidSpec,
			"the HPA spec is invalid: %s", msg))},
		err:     fmt.Errorf("invalid HPA spec: %s%w", msg, errSpec),
		stopped: true,
	}, false
}
