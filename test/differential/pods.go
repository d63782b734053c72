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

package differential

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

const (
	namespace = "ns"
	appLabel  = "web"
	// twinLabel is the app label of the twin HPA's target's pods (twin.go).
	twinLabel = "twin"
)

// pod describes one pod of the target and its reading, in a form that
// prints as a short Go literal. Times are seconds before the scenario's
// "now".
type pod struct {
	Name    string
	Phase   string
	Deleted bool
	// Ready is the Ready condition's status: "" for no condition.
	Ready    string
	ReadyAgo int
	// StartAgo is how long ago the pod started; -1 for no start time.
	StartAgo int
	// CPU and Mem are the app container's requests; -1 for none.
	CPU, Mem int64
	// Sidecar is false for no sidecar; SidecarCPU/Mem -1 for no request.
	Sidecar                bool
	SidecarCPU, SidecarMem int64
	// InitCPU is a plain init container's CPU request (never counted); 0 for none.
	InitCPU int64
	// PodCPU and PodMem are pod-level requests; 0 for none.
	PodCPU, PodMem int64
	// HasMetric tells whether the metrics API has a reading for the pod.
	HasMetric bool
	Metric    int64
	MetricAgo int
	Window    int
}

func (g *gen) pod(i int) pod {
	p := pod{
		Name:      fmt.Sprintf("p%d", i),
		Phase:     pick(g, "Running", "Running", "Running", "Running", "Running", "Running", "Pending", "Failed", "Succeeded", ""),
		Deleted:   g.chance(0.07),
		Ready:     pick(g, "True", "True", "True", "True", "True", "False", "False", ""),
		ReadyAgo:  pick(g, 0, 5, 20, 45, 90, 200, 400, 3600, g.intn(0, 900)),
		StartAgo:  pick(g, -1, 0, 10, 30, 60, 120, 290, 310, 600, 3600, g.intn(0, 900)),
		CPU:       g.request(),
		Mem:       g.request(),
		HasMetric: g.chance(0.85),
		Metric:    g.metricValue(),
		MetricAgo: pick(g, 0, 10, 30, 60, g.intn(0, 400)),
		Window:    pick(g, 15, 30, 60),
	}
	if g.chance(0.15) {
		p.Sidecar, p.SidecarCPU, p.SidecarMem = true, g.request(), g.request()
	}
	if g.chance(0.1) {
		p.InitCPU = 100
	}
	if g.chance(0.1) {
		p.PodCPU = pick(g, int64(0), int64(500), int64(2000))
		p.PodMem = pick(g, int64(0), int64(500), int64(2000))
	}
	return p
}

func (g *gen) request() int64 {
	switch g.intn(0, 11) {
	case 0:
		return -1
	case 1:
		return 0
	default:
		return pick(g, int64(100), int64(250), int64(500), int64(1000), int64(g.intn(1, 4000)))
	}
}

func (g *gen) pods(n int) []pod {
	out := make([]pod, n)
	for i := range out {
		out[i] = g.pod(i)
	}
	return out
}

func requests(cpu, mem int64) corev1.ResourceList {
	l := corev1.ResourceList{}
	if cpu >= 0 {
		l[corev1.ResourceCPU] = *resource.NewMilliQuantity(cpu, resource.DecimalSI)
	}
	if mem >= 0 {
		l[corev1.ResourceMemory] = *resource.NewMilliQuantity(mem, resource.DecimalSI)
	}
	return l
}

// object builds the pod, one of the first HPA's target, as the API would
// hold it at now.
func (p pod) object(now time.Time) *corev1.Pod { return p.objectOf(appLabel, now) }

// objectOf builds the pod with the app label app as the API would hold it
// at now.
func (p pod) objectOf(app string, now time.Time) *corev1.Pod {
	ago := func(s int) time.Time { return now.Add(-time.Duration(s) * time.Second) }
	// Besides what the calculators read, the pod carries what a real one
	// does and kube-hpa's pod records leave out (podrecord): an annotation,
	// an image and limits, a container status and a condition before Ready.
	o := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: p.Name, Labels: map[string]string{"app": app},
			Annotations: map[string]string{"example.com/note": "stripped"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{
			{Name: "app", Image: "registry.example/app:1", Resources: corev1.ResourceRequirements{
				Requests: requests(p.CPU, p.Mem), Limits: requests(p.CPU+p.Mem+1, -1)}},
		}},
		Status: corev1.PodStatus{Phase: corev1.PodPhase(p.Phase),
			Conditions:        []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Time{Time: ago(p.ReadyAgo + 7)}}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: p.Ready == string(corev1.ConditionTrue)}}},
	}
	if p.Deleted {
		o.DeletionTimestamp = &metav1.Time{Time: ago(1)}
	}
	if p.Ready != "" {
		o.Status.Conditions = append(o.Status.Conditions, corev1.PodCondition{
			Type: corev1.PodReady, Status: corev1.ConditionStatus(p.Ready), LastTransitionTime: metav1.Time{Time: ago(p.ReadyAgo)},
		})
	}
	if p.StartAgo >= 0 {
		o.Status.StartTime = &metav1.Time{Time: ago(p.StartAgo)}
	}
	if p.InitCPU > 0 {
		o.Spec.InitContainers = append(o.Spec.InitContainers, corev1.Container{
			Name: "init", Resources: corev1.ResourceRequirements{Requests: requests(p.InitCPU, p.InitCPU)},
		})
	}
	if p.Sidecar {
		o.Spec.InitContainers = append(o.Spec.InitContainers, corev1.Container{
			Name: "sidecar", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways),
			Resources: corev1.ResourceRequirements{Requests: requests(p.SidecarCPU, p.SidecarMem)},
		})
	}
	if p.PodCPU > 0 || p.PodMem > 0 {
		l := corev1.ResourceList{}
		if p.PodCPU > 0 {
			l[corev1.ResourceCPU] = *resource.NewMilliQuantity(p.PodCPU, resource.DecimalSI)
		}
		if p.PodMem > 0 {
			l[corev1.ResourceMemory] = *resource.NewMilliQuantity(p.PodMem, resource.DecimalSI)
		}
		o.Spec.Resources = &corev1.ResourceRequirements{Requests: l}
	}
	return o
}
