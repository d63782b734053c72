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
	"slices"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// reasonAmbiguousScaleTarget is ours: two autoscalers (of either kind) on
// one target would each undo the other's scale, so neither is acted on.
const reasonAmbiguousScaleTarget = "AmbiguousScaleTarget"

// scaleTargetIndex names the informer index of autoscalers by the object
// they scale.
const scaleTargetIndex = "kube-hpa.io/scale-target"

// scaleTargetKey is namespace/group/kind/name of the object an HPA scales.
// The version is left out: apps/v1 and apps/v1beta1 name the same object.
func scaleTargetKey(namespace string, ref autoscalingv2.CrossVersionObjectReference) string {
	group := ""
	if gv, err := schema.ParseGroupVersion(ref.APIVersion); err == nil {
		group = gv.Group
	}
	return namespace + "/" + group + "/" + ref.Kind + "/" + ref.Name
}

// indexByScaleTarget indexes both kinds of HPA (a KEDA ScaledObject shows
// up as the native HPA it owns).
func indexByScaleTarget(obj any) ([]string, error) {
	switch hpa := obj.(type) {
	case *v2.HorizontalPodAutoscaler:
		return []string{scaleTargetKey(hpa.Namespace, hpa.Spec.ScaleTargetRef)}, nil
	case *autoscalingv2.HorizontalPodAutoscaler:
		return []string{scaleTargetKey(hpa.Namespace, hpa.Spec.ScaleTargetRef)}, nil
	default:
		return nil, nil
	}
}

// addScaleTargetIndex adds the index unless the informer has it already
// (a native informer may be both a source and an observed one).
func addScaleTargetIndex(informer cache.SharedIndexInformer) error {
	if _, ok := informer.GetIndexer().GetIndexers()[scaleTargetIndex]; ok {
		return nil
	}
	return informer.AddIndexers(cache.Indexers{scaleTargetIndex: indexByScaleTarget})
}

// autoscalerKinds are the informers whose HPAs own scale targets: the
// sources', then the observed ones not among them, each with its name.
type autoscalerKinds struct {
	informers []cache.SharedIndexInformer
	names     []string
}

func newAutoscalerKinds(sources []HPASource, observed []ObservedAutoscalers) (autoscalerKinds, error) {
	var k autoscalerKinds
	add := func(name string, informer cache.SharedIndexInformer) error {
		if slices.Contains(k.informers, informer) {
			return nil
		}
		if err := addScaleTargetIndex(informer); err != nil {
			return fmt.Errorf("indexing %s HPAs by scale target: %w", name, err)
		}
		k.informers, k.names = append(k.informers, informer), append(k.names, name)
		return nil
	}
	for _, s := range sources {
		if err := add(s.Name(), s.Informer()); err != nil {
			return k, err
		}
	}
	for _, o := range observed {
		if err := add(o.Name, o.Informer); err != nil {
			return k, err
		}
	}
	return k, nil
}

// autoscalerRef names one autoscaler: its kind (the source's name, as
// autoscaling/v2) and namespace/name.
type autoscalerRef struct {
	kind, namespace, name string
}

func (r autoscalerRef) String() string { return r.kind + " " + r.namespace + "/" + r.name }

// others returns, sorted, the autoscalers other than self whose target is
// the object at key.
func (k autoscalerKinds) others(self autoscalerRef, key string) ([]autoscalerRef, error) {
	var out []autoscalerRef
	for i, informer := range k.informers {
		objs, err := informer.GetIndexer().ByIndex(scaleTargetIndex, key)
		if err != nil {
			return nil, err
		}
		for _, obj := range objs {
			meta, ok := obj.(metav1.Object)
			if !ok {
				continue
			}
			ref := autoscalerRef{kind: k.names[i], namespace: meta.GetNamespace(), name: meta.GetName()}
			if ref != self {
				out = append(out, ref)
			}
		}
	}
	return sortedOthers(out), nil
}

func sortedOthers(refs []autoscalerRef) []autoscalerRef {
	slices.SortFunc(refs, func(a, b autoscalerRef) int { return strings.Compare(a.String(), b.String()) })
	return refs
}

// checkOwnership stops the pass, before the scale is read, when another
// autoscaler targets the same object: AbleToScale=False names it and
// nothing is scaled, as upstream does for pods selected by two HPAs. The
// other one is stopped by its own pass when it is ours; one that
// kube-controller-manager runs is not ours to stop.
func (p *pass) checkOwnership() (out outcome, sole bool) {
	self := autoscalerRef{kind: p.source.Name(), namespace: p.hpa.Namespace, name: p.hpa.Name}
	others, err := p.c.owners.others(self, scaleTargetKey(p.hpa.Namespace, p.hpa.Spec.ScaleTargetRef))
	if err != nil || len(others) == 0 {
		// An index that cannot answer is not a reason to stop scaling.
		return outcome{}, true
	}
	names := make([]string, len(others))
	for i, o := range others {
		names[i] = o.String()
	}
	msg := fmt.Sprintf("the scale target %s %s is also targeted by %s; none of them is scaled by kube-hpa until one is removed",
		p.hpa.Spec.ScaleTargetRef.Kind, p.hpa.Spec.ScaleTargetRef.Name, strings.Join(names, ", "))
	p.event(corev1.EventTypeWarning, reasonAmbiguousScaleTarget, "%s", msg)
	return outcome{
		conds:   []conditionEdit{set(newCondition(autoscalingv2.AbleToScale, corev1.ConditionFalse, reasonAmbiguousScaleTarget, "%s", msg))},
		err:     fmt.Errorf("%s%w", msg, errSpec),
		stopped: true,
	}, false
}
