package podstrip

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Strip is the pod informer's transform. Anything that is not a Pod, a
// tombstone included, passes unchanged.
func Strip(obj any) (any, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:              pod.Name,
			Namespace:         pod.Namespace,
			UID:               pod.UID,
			ResourceVersion:   pod.ResourceVersion,
			Labels:            pod.Labels,
			DeletionTimestamp: pod.DeletionTimestamp,
		},
		Spec:   spec(&pod.Spec),
		Status: status(&pod.Status),
	}, nil
}

// spec keeps what the requests of a pod are computed from: every
// container's name, requests and restart policy (a restartable init
// container is a sidecar, whose requests count), the pod-level resources
// and the overhead.
func spec(s *corev1.PodSpec) corev1.PodSpec {
	out := corev1.PodSpec{
		Containers:     containers(s.Containers),
		InitContainers: containers(s.InitContainers),
		Overhead:       s.Overhead,
	}
	if s.Resources != nil {
		out.Resources = &corev1.ResourceRequirements{Requests: s.Resources.Requests, Limits: s.Resources.Limits}
	}
	return out
}

func containers(in []corev1.Container) []corev1.Container {
	if in == nil {
		return nil
	}
	out := make([]corev1.Container, len(in))
	for i := range in {
		out[i] = corev1.Container{
			Name:          in[i].Name,
			Resources:     corev1.ResourceRequirements{Requests: in[i].Resources.Requests},
			RestartPolicy: in[i].RestartPolicy,
		}
	}
	return out
}

// status keeps the phase, the start time and the Ready condition, from
// which the calculator tells a starting or unready pod.
func status(s *corev1.PodStatus) corev1.PodStatus {
	out := corev1.PodStatus{Phase: s.Phase, StartTime: s.StartTime}
	for _, c := range s.Conditions {
		if c.Type == corev1.PodReady {
			out.Conditions = []corev1.PodCondition{{Type: c.Type, Status: c.Status, LastTransitionTime: c.LastTransitionTime}}
			break
		}
	}
	return out
}
