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
	"errors"
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kube-hpa/kube-hpa/pkg/features"
	"github.com/kube-hpa/kube-hpa/pkg/podrecord"
)

// targetSelector parses the selector of the target's pods and refuses one
// that is missing, malformed, or shared with another HPA, with upstream's
// events and conditions for each.
func (p *pass) targetSelector(tgt target) (labels.Selector, []conditionEdit, error) {
	invalid := func(reason, format string, args ...any) []conditionEdit {
		return []conditionEdit{set(newCondition(autoscalingv2.ScalingActive, corev1.ConditionFalse, reason, format, args...))}
	}
	ns, raw := p.hpa.Namespace, tgt.scale.Status.Selector
	if raw == "" {
		p.event(corev1.EventTypeWarning, "SelectorRequired", "selector is required")
		return nil, invalid("InvalidSelector", "the HPA target's scale is missing a selector"), errors.New("selector is required")
	}
	selector, err := p.c.selectors.parse(p.key, raw)
	var gone errHPAGone
	if errors.As(err, &gone) {
		return nil, nil, err
	}
	if err != nil {
		err = fmt.Errorf("couldn't convert selector into a corresponding internal selector object: %w", err)
		p.event(corev1.EventTypeWarning, "InvalidSelector", "%s", err.Error())
		return nil, invalid("InvalidSelector", "%s", err.Error()), err
	}
	owners, err := p.c.selectors.owners(p.key, func() ([]*podrecord.Pod, error) {
		return p.c.podLister.List(ns, selector)
	})
	if err != nil {
		return nil, nil, err
	}
	if len(owners) > 1 {
		if p.c.opts.Gates.Enabled(features.HPAOptimizedSelectorStore) {
			// v1.37's optimized store stops at two owners and names those.
			owners = owners[:2]
		}
		err := fmt.Errorf("pods by selector %v are controlled by more than one HPA (e.g. %v)", raw, namespacedNames(owners))
		p.event(corev1.EventTypeWarning, "AmbiguousSelector", "%s", err.Error())
		return nil, invalid("AmbiguousSelector", "%s", err.Error()), err
	}
	return selector, nil, nil
}

// namespacedNames lists HPAs as upstream's messages do, namespace/name: a
// native and an extended HPA of one name read the same there.
func namespacedNames(keys []hpaKey) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.namespace + "/" + k.name
	}
	return out
}
