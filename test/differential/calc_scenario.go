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
)

// The replica calculator methods a scenario calls, one per target kind.
const (
	methodResource       = "Resource"       // Utilization of a resource
	methodRawResource    = "RawResource"    // AverageValue of a resource
	methodPods           = "Pods"           // AverageValue of a Pods metric
	methodObject         = "Object"         // Value of an Object metric
	methodObjectPerPod   = "ObjectPerPod"   // AverageValue of an Object metric
	methodExternal       = "External"       // Value of an External metric
	methodExternalPerPod = "ExternalPerPod" // AverageValue of an External metric
)

var calcMethods = []string{methodResource, methodRawResource, methodPods, methodObject, methodObjectPerPod, methodExternal, methodExternalPerPod}

// calcScenario is one call of a replica calculator method, with everything
// it sees. It prints (row) as a Go literal for the regressions table.
type calcScenario struct {
	Method    string
	Resource  string
	Container string
	// Current is the current (spec) replicas, or status replicas for the
	// per-pod Object and External targets.
	Current int32
	// Target is a utilization percentage (Resource) or a milli-value.
	Target         int64
	TolDown, TolUp float64
	CPUInit        int // seconds
	ReadinessDelay int // seconds
	Pods           []pod
	Gone           []int64 // readings of pods the lister no longer has
	Value          int64   // Object
	Values         []int64 // External
	FetchErr       bool
	MetricAgo      int // Object and External reading age, seconds
}

func (g *gen) calcScenario() calcScenario {
	s := calcScenario{
		Method:         pick(g, calcMethods...),
		Resource:       pick(g, "cpu", "cpu", "memory"),
		Container:      pick(g, "", "", "", "", "app", "sidecar", "nope"),
		Current:        int32(pick(g, 0, 1, 1, 2, 3, 4, 5, 8, 10, 100, g.intn(0, 30))),
		Target:         g.targetValue(),
		TolDown:        g.tolerance(),
		TolUp:          g.tolerance(),
		CPUInit:        pick(g, 300, 300, 0, 60),
		ReadinessDelay: pick(g, 30, 30, 0, 120),
		Pods:           g.pods(pick(g, 0, 1, 2, 3, 3, 4, 5, 6, 8)),
		Value:          g.metricValue(),
		FetchErr:       g.chance(0.04),
		MetricAgo:      pick(g, 0, 30, 90),
	}
	if s.Method == methodResource {
		s.Target = int64(pick(g, 1, 10, 50, 80, 100, 150, 300, g.intn(1, 200)))
	}
	for range pick(g, 0, 0, 0, 1, 2) {
		s.Gone = append(s.Gone, g.metricValue())
	}
	for range pick(g, 0, 1, 1, 1, 2, 3, 4) {
		s.Values = append(s.Values, g.metricValue())
	}
	return s.trimmed()
}

// metricName is the name every non-resource metric of a calculator scenario has.
const metricName = "m"

// load gives the fake metrics client the scenario's readings, as of now.
func (s calcScenario) load(f *fakeMetrics, now time.Time) {
	ago := func(sec int) time.Time { return now.Add(-time.Duration(sec) * time.Second) }
	readings := map[string]podReading{}
	for _, p := range s.Pods {
		if p.HasMetric {
			readings[p.Name] = podReading{app: appLabel, value: p.Metric, timestamp: ago(p.MetricAgo), window: time.Duration(p.Window) * time.Second}
		}
	}
	for i, v := range s.Gone {
		readings[fmt.Sprintf("gone%d", i)] = podReading{app: appLabel, value: v, timestamp: ago(30), window: 30 * time.Second}
	}
	var err error
	if s.FetchErr {
		err = errAdapter
	}
	pa := podAnswer{readings: readings, err: err}
	f.resource[corev1.ResourceName(s.Resource)] = pa
	f.pods[metricName] = pa
	f.object[metricName] = objectAnswer{value: s.Value, timestamp: ago(s.MetricAgo), err: err}
	f.external[metricName] = externalAnswer{values: s.Values, timestamp: ago(s.MetricAgo), err: err}
}

// row prints the scenario as a Go literal, ready for a table of cases.
func (s calcScenario) row() string {
	return literal(s)
}

// trimmed clears what the scenario's method never reads, so that its row
// shows only what matters.
func (s calcScenario) trimmed() calcScenario {
	perPod := s.Method == methodObjectPerPod || s.Method == methodExternalPerPod
	podMetric := s.Method == methodResource || s.Method == methodRawResource || s.Method == methodPods
	if s.Method != methodResource && s.Method != methodRawResource {
		s.Resource, s.Container = "", ""
	}
	if s.Resource != "cpu" {
		s.CPUInit, s.ReadinessDelay = 0, 0
	}
	if s.Method != methodObject && s.Method != methodObjectPerPod {
		s.Value = 0
	}
	if s.Method != methodExternal && s.Method != methodExternalPerPod {
		s.Values = nil
	}
	if podMetric {
		s.MetricAgo = 0
	} else {
		s.Gone = nil
	}
	if perPod {
		s.Pods = nil
		return s
	}
	s.Pods = append([]pod(nil), s.Pods...)
	for i := range s.Pods {
		p := &s.Pods[i]
		if !podMetric {
			// Value targets only count the running and ready pods.
			*p = pod{Name: p.Name, Phase: p.Phase, Ready: p.Ready, Deleted: p.Deleted}
			continue
		}
		if s.Method != methodResource {
			p.CPU, p.Mem, p.Sidecar, p.SidecarCPU, p.SidecarMem, p.InitCPU, p.PodCPU, p.PodMem = 0, 0, false, 0, 0, 0, 0, 0
		}
		if !p.HasMetric {
			p.Metric, p.MetricAgo, p.Window = 0, 0, 0
		}
		if s.Resource != "cpu" {
			p.Ready, p.ReadyAgo, p.StartAgo, p.MetricAgo, p.Window = "", 0, 0, 0, 0
		}
	}
	return s
}
