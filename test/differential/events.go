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
	"context"
	"fmt"
	"sync"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

// eventLog is every event a controller records, in the order it records
// them, before client-go's correlator. The events that reach the API server
// are no fair comparison: the correlator aggregates similar events by
// dropping a random message from its set (sets.PopAny), so upstream run
// twice on one scenario already writes different events (-seed 20261125
// -case 16472), and its spam filter then drops a different subset. Equal
// streams here mean equal events written, whatever the correlator does.
//
// The events are kept by the name of their object, the HPA: two HPAs'
// passes run side by side, so only the events of one are in an order.
type eventLog struct {
	mu    sync.Mutex
	lines map[string][]string
}

// take returns the events about the object named name recorded since the
// last take.
func (l *eventLog) take(name string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.lines[name]
	delete(l.lines, name)
	return out
}

// forget drops every event recorded so far.
func (l *eventLog) forget() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = nil
}

func (l *eventLog) add(object, line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lines == nil {
		l.lines = map[string][]string{}
	}
	l.lines[object] = append(l.lines[object], line)
}

// eventLogContext returns ctx with a logger that keeps in log the events an
// event broadcaster reports through StartStructuredLogging(3), and drops
// everything else. Upstream's controller starts that logging itself; the
// harness starts it for kube-hpa's broadcaster, so both streams come the
// same way.
func eventLogContext(ctx context.Context, log *eventLog) context.Context {
	return klog.NewContext(ctx, logr.New(eventSink{log: log}))
}

// eventLoggingLevel is the verbosity at which both broadcasters log events.
const eventLoggingLevel = 3

type eventSink struct{ log *eventLog }

func (eventSink) Init(logr.RuntimeInfo)            {}
func (eventSink) Enabled(level int) bool           { return level <= eventLoggingLevel }
func (eventSink) Error(error, string, ...any)      {}
func (s eventSink) WithValues(...any) logr.LogSink { return s }
func (s eventSink) WithName(string) logr.LogSink   { return s }

func (s eventSink) Info(_ int, msg string, kv ...any) {
	if msg != "Event occurred" {
		return
	}
	var typ, reason, message any
	var object string
	for i := 0; i+1 < len(kv); i += 2 {
		switch kv[i] {
		case "object":
			if ref, ok := kv[i+1].(klog.ObjectRef); ok {
				object = ref.Name
			}
		case "type":
			typ = kv[i+1]
		case "reason":
			reason = kv[i+1]
		case "message":
			message = kv[i+1]
		}
	}
	s.log.add(object, fmt.Sprintf("%s %s %q", typ, reason, message))
}
