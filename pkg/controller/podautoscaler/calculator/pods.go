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
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
	"github.com/kube-hpa/kube-hpa/pkg/podrecord"
)

// errNoPods is returned when the HPA's selector matches no pod.
var errNoPods = errors.New("no pods returned by selector while calculating replica count")

// podGroups sorts the pods an HPA targets by how their readings count.
type podGroups struct {
	// ready is the number of pods whose readings count as they are.
	ready int
	// unready pods are pending, or (for CPU) not ready or still starting;
	// they count only on a scale-up, at 0.
	unready sets.Set[string]
	// missing pods have no reading; they count at the most cautious value.
	missing sets.Set[string]
	// ignored pods are being deleted or have failed.
	ignored sets.Set[string]
}

// listPods returns the pods selector matches in namespace, failing when
// there are none.
func (c *Calculator) listPods(namespace string, selector labels.Selector) ([]*podrecord.Pod, error) {
	pods, err := c.pods.List(namespace, selector)
	if err != nil {
		return nil, fmt.Errorf("unable to get pods while calculating replica count: %w", err)
	}
	if len(pods) == 0 {
		return nil, errNoPods
	}
	return pods, nil
}

// groupPods sorts pods by how their readings count. Readiness matters only
// for CPU, whose readings a starting pod skews.
func (c *Calculator) groupPods(pods []*podrecord.Pod, readings metrics.PodMetricsInfo, resource corev1.ResourceName) podGroups {
	g := podGroups{unready: sets.New[string](), missing: sets.New[string](), ignored: sets.New[string]()}
	now := c.clock.Now()
	for _, pod := range pods {
		if pod.Deleting || pod.Phase == corev1.PodFailed {
			g.ignored.Insert(pod.Name)
			continue
		}
		if pod.Phase == corev1.PodPending {
			g.unready.Insert(pod.Name)
			continue
		}
		reading, found := readings[pod.Name]
		if !found {
			g.missing.Insert(pod.Name)
			continue
		}
		if resource == corev1.ResourceCPU && c.cpuReadingUnreliable(pod, reading, now) {
			g.unready.Insert(pod.Name)
			continue
		}
		g.ready++
	}
	return g
}

// cpuReadingUnreliable tells whether a pod's CPU reading should be held back
// because the pod is not ready or is still starting up (when CPU use is
// typically higher than in steady state).
func (c *Calculator) cpuReadingUnreliable(pod *podrecord.Pod, reading metrics.PodMetric, now time.Time) bool {
	if pod.Ready == "" || !pod.Started {
		return true
	}
	if pod.StartTime.Add(c.cpuInitializationPeriod).After(now) {
		// Still initializing: trust only a ready pod whose reading covers a
		// whole window since it last changed readiness.
		return pod.Ready == corev1.ConditionFalse ||
			reading.Timestamp.Before(pod.ReadySince.Add(reading.Window))
	}
	// Past initialization: an unready pod counts unless it was ready once,
	// which is told by its last transition coming after the initial
	// readiness delay.
	return pod.Ready == corev1.ConditionFalse &&
		pod.StartTime.Add(c.delayOfInitialReadinessStatus).After(pod.ReadySince)
}

// readyPodCount counts the running and ready pods selector matches, which is
// how many pods share the load an Object or External metric measures.
func (c *Calculator) readyPodCount(namespace string, selector labels.Selector) (int64, error) {
	pods, err := c.listPods(namespace, selector)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, pod := range pods {
		if pod.RunningAndReady() {
			n++
		}
	}
	return n, nil
}

// dropReadings removes the readings of the named pods.
func dropReadings(readings metrics.PodMetricsInfo, pods sets.Set[string]) {
	for name := range pods {
		delete(readings, name)
	}
}

// IsNoMatchingPods reports whether err, however wrapped, says there was no
// pod to compute from: the selector matched none, or no reading belonged to
// a pod whose request is known.
func IsNoMatchingPods(err error) bool {
	return errors.Is(err, errNoPods) || errors.Is(err, errNoMatchingReadings)
}
