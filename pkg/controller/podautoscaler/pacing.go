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
	"sync"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/behavior"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/cadence"
)

// Pacing (package cadence): the passes of an HPA whose scale is climbing
// (or falling) in steps follow each other by one period, as upstream's
// do, instead of waiting for their slots: a behavior policy allows its
// next step one policy period after the last rescale, and a pass on the
// next slot would come sooner and be held back again.

// passTiming is when a pass started, whether it paces the next one, and
// the deadline (a fallback coming due) it asks to be woken at, if any.
type passTiming struct {
	start  time.Time
	paced  bool
	wakeAt time.Time
}

// paced reports whether the pass of out makes the next one due one period
// after it: it rescaled, or a rate limit held back part of the
// recommendation (the next step is due a policy period after the last).
func paced(out outcome) bool {
	return out.rescaled || out.rateLimited
}

// rateLimited reports whether normalization's conditions say that a rate
// limit held back the recommendation.
func rateLimited(conds []conditionEdit) bool {
	for _, e := range conds {
		c := e.cond
		if c.Type == autoscalingv2.ScalingLimited && c.Status == corev1.ConditionTrue &&
			(c.Reason == behavior.ReasonScaleUpLimit || c.Reason == behavior.ReasonScaleDownLimit) {
			return true
		}
	}
	return false
}

// passLog remembers each HPA's last pass: when it ended (for the age of
// the shared answers it may take next), its HPA's standing in the slow
// lane (package cadence), and the passes that panicked in a row (the
// cadence's backoff).
type passLog struct {
	mu     sync.Mutex
	passes map[hpaKey]lastPass
}

type lastPass struct {
	end    time.Time
	lane   cadence.Standing
	panics int
}

func newPassLog() *passLog { return &passLog{passes: map[hpaKey]lastPass{}} }

// ended records a pass of key that ended at end, and how fast it was.
func (l *passLog) ended(key hpaKey, end time.Time, speed cadence.Speed) {
	l.mu.Lock()
	defer l.mu.Unlock()
	last := l.passes[key]
	last.end, last.panics, last.lane = end, 0, last.lane.After(speed)
	l.passes[key] = last
}

// overran records that a pass of key has run past its share of a worker:
// its HPA is slow from now, before the pass ends.
func (l *passLog) overran(key hpaKey) {
	l.mu.Lock()
	defer l.mu.Unlock()
	last := l.passes[key]
	last.lane = last.lane.After(cadence.PassedSlow)
	l.passes[key] = last
}

// panicked records a pass of key that panicked and returns how many did
// in a row.
func (l *passLog) panicked(key hpaKey) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	last := l.passes[key]
	last.panics++
	l.passes[key] = last
	return last.panics
}

func (l *passLog) forget(key hpaKey) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.passes, key)
}

// slow reports whether key is in the slow lane.
func (l *passLog) slow(key hpaKey) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.passes[key].lane.Slow
}

// maxAge is the age a shared answer may have for a pass of key starting
// now: limit, and never as old as the HPA's last pass, whose answers tell
// it nothing new. A pass that ran late can be followed on the HPA's slot
// less than limit later.
func (l *passLog) maxAge(key hpaKey, now time.Time, limit time.Duration) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if last, ok := l.passes[key]; ok {
		return max(min(limit, now.Sub(last.end)), 0)
	}
	return limit
}
