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

package bench

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// sample is one line of the Prometheus text format.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// parseSamples reads the samples of the metrics named in names (every
// metric when names is empty) from the Prometheus text format. It is small
// on purpose: the benchmark reads counters, gauges and the totals of
// histograms (their _sum and _count samples are names of their own), and
// keeping prometheus/common out of its imports keeps go.mod as it is.
func parseSamples(r io.Reader, names ...string) ([]sample, error) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out []sample
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 64<<10), 4<<20)
	for scanner.Scan() {
		line := strings.TrimSpace(scanner.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		nameEnd := strings.IndexAny(line, "{ ")
		if nameEnd < 0 {
			return nil, fmt.Errorf("malformed sample %q", line)
		}
		name := line[:nameEnd]
		if len(want) > 0 && !want[name] {
			continue
		}
		s, err := parseSample(name, line[nameEnd:])
		if err != nil {
			return nil, fmt.Errorf("sample %q: %w", line, err)
		}
		out = append(out, s)
	}
	return out, scanner.Err()
}

// parseSample reads `{labels} value [timestamp]` after the metric name.
func parseSample(name, rest string) (sample, error) {
	s := sample{name: name, labels: map[string]string{}}
	if strings.HasPrefix(rest, "{") {
		var err error
		rest, err = parseLabels(rest[1:], s.labels)
		if err != nil {
			return s, err
		}
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return s, fmt.Errorf("no value")
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return s, err
	}
	s.value = v
	return s, nil
}

// parseLabels reads `k="v",...}` into into and returns what follows the
// closing brace. Values are Go-style quoted strings, escapes included.
func parseLabels(in string, into map[string]string) (string, error) {
	for {
		in = strings.TrimLeft(in, " ,")
		if strings.HasPrefix(in, "}") {
			return in[1:], nil
		}
		eq := strings.IndexByte(in, '=')
		if eq < 0 {
			return "", fmt.Errorf("label without value in %q", in)
		}
		key := strings.TrimSpace(in[:eq])
		in = strings.TrimLeft(in[eq+1:], " ")
		quoted, err := strconv.QuotedPrefix(in)
		if err != nil {
			return "", fmt.Errorf("label %s: %w", key, err)
		}
		value, err := strconv.Unquote(quoted)
		if err != nil {
			return "", fmt.Errorf("label %s: %w", key, err)
		}
		into[key] = value
		in = in[len(quoted):]
	}
}

// sumBy adds up the values of samples per key(labels); samples for which
// key returns "" are left out.
func sumBy(samples []sample, key func(map[string]string) string) map[string]float64 {
	out := map[string]float64{}
	for _, s := range samples {
		if k := key(s.labels); k != "" {
			out[k] += s.value
		}
	}
	return out
}

// sumWhere adds up the values of the samples named name whose labels
// include every pair of match (every sample of name when match is empty).
// A histogram's totals are the samples of its family name with "_sum" and
// "_count" appended; its "_bucket" samples are cumulative and are not to be
// added up.
func sumWhere(samples []sample, name string, match map[string]string) float64 {
	var total float64
	for _, s := range samples {
		if s.name == name && labelsInclude(s.labels, match) {
			total += s.value
		}
	}
	return total
}

// labelsInclude says whether labels has every pair of match; as in
// Prometheus, a label that is absent has the empty value.
func labelsInclude(labels, match map[string]string) bool {
	for k, v := range match {
		if labels[k] != v {
			return false
		}
	}
	return true
}
