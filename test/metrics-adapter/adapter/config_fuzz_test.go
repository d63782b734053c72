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

package adapter

import "testing"

// FuzzParseConfig feeds arbitrary keys and values to ParseConfig: it must
// never panic, and every metric it keeps is either valid or explains why
// not, so that a fetch answers something meaningful.
func FuzzParseConfig(f *testing.F) {
	f.Add("external.queue_depth", `{value: "30", labels: {queue: orders}, fault: error, errorCode: 503}`)
	f.Add("custom.object.Deployment.web.v2.queue_length", "42")
	f.Add("custom.pods.rps", `{value: 10, pods: {web-1: 2}}`)
	f.Add("fault.external", "hang")
	f.Add("external.x", `[{value: 1}, {value: 2, labels: {a: b}}]`)
	f.Add("custom.object..", "1")
	f.Fuzz(func(t *testing.T, key, value string) {
		c := ParseConfig(map[string]string{key: value})
		all := []*Metric{c.ExternalFault, c.CustomFault}
		for _, m := range c.External {
			all = append(all, m)
		}
		for _, m := range c.Pods {
			all = append(all, m)
		}
		for _, o := range c.Objects {
			if o.Kind == "" || o.Name == "" || o.MetricName == "" {
				t.Errorf("object key %q split into %+v", key, o)
			}
			all = append(all, o.Spec)
		}
		kept := 0
		for _, m := range all {
			if m == nil {
				continue
			}
			kept++
			if m.Invalid == nil && !m.Fault.valid() {
				t.Errorf("key %q kept with unknown fault %q", key, m.Fault)
			}
		}
		if kept+len(c.Problems) == 0 {
			t.Errorf("key %q = %q neither kept nor reported", key, value)
		}
	})
}
