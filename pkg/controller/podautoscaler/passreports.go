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
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor"
)

// pendingEvent is an event a pass decided to record.
type pendingEvent struct {
	eventType, reason, message string
	// afterStatus puts the event after those of the status write, where
	// upstream records it: the failure to compute a count, which it
	// records once the observed metrics are stored.
	afterStatus bool
}

// computation is one metric's computation, for Prometheus.
type computation struct {
	action     monitor.ActionLabel
	errorLabel monitor.ErrorLabel
	took       time.Duration
	sourceType autoscalingv2.MetricSourceType
}

// reports holds what a pass tells the world besides status (its events and
// its metric computations) until the pass is over. Each decision gathers
// its own (pass.attempt), and the pass keeps those of the decision that
// stands: a decision abandoned because the target changed under it
// (decide) reports nothing, and a pass reports the decision it wrote, once,
// in the order the decision was made.
type reports struct {
	events       []pendingEvent
	computations []computation
}

func (r *reports) event(eventType, reason, format string, args ...any) {
	r.events = append(r.events, pendingEvent{eventType: eventType, reason: reason, message: fmt.Sprintf(format, args...)})
}

// eventAfterStatus is event for one that follows the status write's events.
func (r *reports) eventAfterStatus(eventType, reason, format string, args ...any) {
	r.events = append(r.events, pendingEvent{eventType: eventType, reason: reason, message: fmt.Sprintf(format, args...), afterStatus: true})
}

func (r *reports) computed(c computation) { r.computations = append(r.computations, c) }

// keep adds a decision's reports to the pass's, after those gathered
// before it.
func (r *reports) keep(decided *reports) {
	r.events = append(r.events, decided.events...)
	r.computations = append(r.computations, decided.computations...)
}

// flushReports records the pass's events about its HPA and its metric
// computations.
func (p *pass) flushReports() {
	for _, c := range p.reports.computations {
		p.c.opts.Monitor.ObserveMetricComputationResult(c.action, c.errorLabel, c.took, c.sourceType)
	}
	obj := p.source.EventObject(p.hpa)
	for _, afterStatus := range []bool{false, true} {
		for _, e := range p.reports.events {
			if e.afterStatus == afterStatus {
				p.c.opts.EventRecorder.Event(obj, e.eventType, e.reason, e.message)
			}
		}
	}
	*p.reports = reports{}
}
