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

package calculator

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/clock"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
	"github.com/kube-hpa/kube-hpa/pkg/podrecord"
)

// PodLister lists the records of the pods a selector matches in a
// namespace (podrecord.Lister).
type PodLister interface {
	List(namespace string, selector labels.Selector) ([]*podrecord.Pod, error)
}

// Options configures a Calculator.
type Options struct {
	// MetricsClient fetches the readings.
	MetricsClient metrics.Client
	// PodLister lists the pods an HPA's selector matches.
	PodLister PodLister
	// CPUInitializationPeriod is how long after a pod starts its CPU
	// readings are distrusted unless it is ready and has been for a whole
	// metric window (--horizontal-pod-autoscaler-cpu-initialization-period).
	CPUInitializationPeriod time.Duration
	// DelayOfInitialReadinessStatus is how long after a pod starts an
	// unready pod is taken as never having been ready, and so left out of
	// CPU readings (--horizontal-pod-autoscaler-initial-readiness-delay).
	DelayOfInitialReadinessStatus time.Duration
	// IgnorePodLevelResources makes requests come from the containers even
	// when a pod sets pod-level requests, as kube-controller-manager does
	// with the PodLevelResources feature gate off. The zero value matches
	// that gate's default in v1.36 (on).
	IgnorePodLevelResources bool
	// Clock tells the time for the CPU initialization rules; the real
	// clock when nil.
	Clock clock.PassiveClock
}

// Calculator proposes replica counts. It is safe for concurrent use.
type Calculator struct {
	metrics                       metrics.Client
	pods                          PodLister
	cpuInitializationPeriod       time.Duration
	delayOfInitialReadinessStatus time.Duration
	ignorePodLevelResources       bool
	clock                         clock.PassiveClock
}

// New returns a Calculator.
func New(opts Options) *Calculator {
	c := &Calculator{
		metrics:                       opts.MetricsClient,
		pods:                          opts.PodLister,
		cpuInitializationPeriod:       opts.CPUInitializationPeriod,
		delayOfInitialReadinessStatus: opts.DelayOfInitialReadinessStatus,
		ignorePodLevelResources:       opts.IgnorePodLevelResources,
		clock:                         opts.Clock,
	}
	if c.clock == nil {
		c.clock = clock.RealClock{}
	}
	return c
}

// Result is a proposal for one metric, with the current reading that led to
// it, for the HPA's status.
type Result struct {
	// Replicas is the proposed replica count.
	Replicas int32
	// Utilization is the current usage as a percentage of the pods'
	// requests. Set by GetResourceReplicas only.
	Utilization int32
	// RawUsage is the current reading as a milli-value: the average per pod
	// for resource, pods and AverageValue targets, the metric's value for
	// Value targets.
	RawUsage int64
	// Timestamp is when the (oldest) reading was taken.
	Timestamp time.Time
}

// Tolerances is how far a usage ratio may stray from 1 before the replica
// count changes, below (ScaleDown) and above (ScaleUp); 0.1 is 10%.
type Tolerances struct {
	ScaleDown float64
	ScaleUp   float64
}

// IsWithin tells whether usageRatio is close enough to 1 to keep the
// current replicas.
func (t Tolerances) IsWithin(usageRatio float64) bool {
	return 1-t.ScaleDown <= usageRatio && usageRatio <= 1+t.ScaleUp
}

// String formats t as percentages.
func (t Tolerances) String() string {
	return fmt.Sprintf("[down:%.1f%%, up:%.1f%%]", t.ScaleDown*100, t.ScaleUp*100)
}
