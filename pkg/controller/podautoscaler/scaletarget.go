package podautoscaler

import (
	"fmt"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/retry"
)

// readScale reads the scale subresource of the HPA's target.
func (p *pass) readScale() error {
	ref := p.hpa.Spec.ScaleTargetRef
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return p.failGetScale(err, fmt.Errorf("invalid API version in scale target reference: %v%w", err, errSpec))
	}
	mappings, err := p.c.opts.Mapper.RESTMappings(schema.GroupKind{Group: gv.Group, Kind: ref.Kind})
	if err != nil {
		return p.failGetScale(err, fmt.Errorf("unable to determine resource for scale target reference: %w", err))
	}
	scale, gr, err := p.scaleForMappings(mappings)
	if err != nil {
		return p.failGetScale(err, fmt.Errorf("failed to query scale subresource for %s: %w", p.reference, err))
	}
	p.scale, p.targetGR, p.current = scale, gr, scale.Spec.Replicas
	p.setCondition(newCondition(autoscalingv2.AbleToScale, corev1.ConditionTrue, "SucceededGetScale",
		"the HPA controller was able to get the target's current scale"))
	p.c.behavior.RecordInitial(p.key.String(), p.current)
	return nil
}

func (p *pass) failGetScale(cause, err error) error {
	p.event(corev1.EventTypeWarning, "FailedGetScale", "%s", cause.Error())
	return p.failWith(newCondition(autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedGetScale",
		"the HPA controller was unable to get the target's current scale: %v", cause), err)
}

// scaleForMappings tries each REST mapping of the target's kind until one
// serves a scale subresource. The first error is the one reported, since
// the first mapping is the preferred one.
func (p *pass) scaleForMappings(mappings []*apimeta.RESTMapping) (*autoscalingv1.Scale, schema.GroupResource, error) {
	var firstErr error
	for _, mapping := range mappings {
		gr := mapping.Resource.GroupResource()
		scale, err := p.c.opts.ScaleClient.Scales(p.hpa.Namespace).Get(p.ctx, gr, p.hpa.Spec.ScaleTargetRef.Name, metav1.GetOptions{})
		if err == nil {
			return scale, gr, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if firstErr == nil {
		firstErr = fmt.Errorf("unrecognized resource")
	}
	return nil, schema.GroupResource{}, firstErr
}

// updateScale writes the desired replicas, re-reading the scale after a
// conflict so that a concurrent writer (a rollout, a person) does not make
// the controller give up.
func (p *pass) updateScale() error {
	scales := p.c.opts.ScaleClient.Scales(p.hpa.Namespace)
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		p.scale.Spec.Replicas = p.desired
		_, err := scales.Update(p.ctx, p.targetGR, p.scale, metav1.UpdateOptions{})
		if err == nil {
			return nil
		}
		latest, getErr := scales.Get(p.ctx, p.targetGR, p.hpa.Spec.ScaleTargetRef.Name, metav1.GetOptions{})
		if getErr == nil {
			p.scale = latest
		} else {
			p.logger.Error(getErr, "Re-reading the scale after a failed update", "target", p.reference)
		}
		return err
	})
}
