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

package app

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// promqlNames returns the metric names that a PromQL expression selects, in
// order of appearance: every identifier that is not a function or an
// aggregation (followed by a parenthesis, or by by/without), a keyword, a label (in a matcher or a by/without/on/
// ignoring/group_left/group_right list), part of a string, a number, a
// duration or a Grafana variable ($name, ${name}). The main module does not
// link Prometheus' parser, and the expressions of the rules and the
// dashboard use only this much of the language.
func promqlNames(expr string) []string {
	var names []string
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			i = skipString(expr, i)
		case c == '{':
			i = skipBlock(expr, i, '}')
		case c == '[':
			i = skipBlock(expr, i, ']')
		case c == '#':
			for i < len(expr) && expr[i] != '\n' {
				i++
			}
		case c == '$':
			i++
			if i < len(expr) && expr[i] == '{' {
				i = skipBlock(expr, i, '}')
			} else {
				i = skipWord(expr, i)
			}
		case isDigit(c) || c == '.':
			i = skipWord(expr, i)
		case isIdentStart(c):
			end := skipWord(expr, i)
			word := expr[i:end]
			next := end
			for next < len(expr) && strings.ContainsRune(" \t\r\n", rune(expr[next])) {
				next++
			}
			parenthesis := next < len(expr) && expr[next] == '('
			// An aggregation with its grouping first: sum by (le) (...).
			grouped := slices.Contains([]string{"by", "without"}, expr[next:skipWord(expr, next)])
			switch {
			case labelListKeywords[word] && parenthesis:
				end = skipBlock(expr, next, ')')
			case parenthesis, grouped, promqlKeywords[word], labelListKeywords[word]:
			default:
				names = append(names, word)
			}
			i = end
		default:
			i++
		}
	}
	return names
}

// labelListKeywords are followed by a list of labels in parentheses.
var labelListKeywords = map[string]bool{
	"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true,
}

// promqlKeywords are the other words of PromQL that are not metric names.
var promqlKeywords = map[string]bool{
	"and": true, "or": true, "unless": true, "bool": true, "offset": true, "atan2": true, "inf": true, "nan": true,
}

// grafanaVariableNames returns the metric names of the query of a Grafana
// variable of the Prometheus data source: label_values(selector, label)
// selects a metric, label_values(label) none, query_result(expr) those of
// expr. Any other form is an error, so that none goes unchecked.
func grafanaVariableNames(query string) ([]string, error) {
	query = strings.TrimSpace(query)
	for _, fn := range []string{"label_values", "query_result"} {
		if !strings.HasPrefix(query, fn+"(") || !strings.HasSuffix(query, ")") {
			continue
		}
		args := query[len(fn)+1 : len(query)-1]
		if fn == "query_result" {
			return promqlNames(args), nil
		}
		comma := lastTopLevelComma(args)
		if comma < 0 {
			return nil, nil
		}
		return promqlNames(args[:comma]), nil
	}
	return nil, fmt.Errorf("variable query %q is neither label_values(...) nor query_result(...)", query)
}

// lastTopLevelComma is the index of the last comma of s outside strings,
// braces and parentheses, or -1.
func lastTopLevelComma(s string) int {
	last, depth := -1, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"', '\'', '`':
			i = skipString(s, i) - 1
		case '{', '(', '[':
			depth++
		case '}', ')', ']':
			depth--
		case ',':
			if depth == 0 {
				last = i
			}
		}
	}
	return last
}

// skipString returns the index just past the string literal at s[i].
func skipString(s string, i int) int {
	quote := s[i]
	for i++; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if quote != '`' {
				i++
			}
		case quote:
			return i + 1
		}
	}
	return i
}

// skipBlock returns the index just past the close that ends the block
// opened at s[i], skipping the strings in it (label matchers hold them).
func skipBlock(s string, i int, close byte) int {
	for i++; i < len(s); i++ {
		switch s[i] {
		case '"', '\'', '`':
			i = skipString(s, i) - 1
		case close:
			return i + 1
		}
	}
	return i
}

// skipWord returns the index past the identifier, number or duration at s[i].
func skipWord(s string, i int) int {
	for i < len(s) && (isIdentStart(s[i]) || isDigit(s[i]) || s[i] == '.') {
		i++
	}
	return i
}

func isIdentStart(c byte) bool {
	return c == '_' || c == ':' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func TestPromQLNames(t *testing.T) {
	tests := []struct {
		name string
		expr string
		want []string
	}{
		{
			name: "a bare selector is its metric",
			expr: `up`,
			want: []string{"up"},
		},
		{
			name: "matchers, their strings and a range are not metrics",
			expr: `rate(a_total{job=~"$job", error!="none", x='y}'}[5m])`,
			want: []string{"a_total"},
		},
		{
			name: "aggregation labels before and after the expression are not metrics",
			expr: `sum by (le, metric_type) (rate(b_bucket[$__rate_interval])) + sum(c) without (instance)`,
			want: []string{"b_bucket", "c"},
		},
		{
			name: "vector matching and its label lists are not metrics",
			expr: "d / ignoring (group, resource) group_left\n  e > bool 0.1 and on () f or vector(0)",
			want: []string{"d", "e", "f"},
		},
		{
			name: "numbers, durations, offsets and Grafana variables are not metrics",
			expr: `g offset 1h30m * 1e3 / $sync_period / ${period} > 0.5`,
			want: []string{"g"},
		},
		{
			name: "functions with string arguments and recording rule names with colons",
			expr: `label_replace(job:h:rate5m, "dst", "$1", "src", "(.*)") unless histogram_quantile(0.99, i_bucket)`,
			want: []string{"job:h:rate5m", "i_bucket"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := promqlNames(tc.expr); !slices.Equal(got, tc.want) {
				t.Errorf("promqlNames(%q) = %q, want %q", tc.expr, got, tc.want)
			}
		})
	}
}

func TestGrafanaVariableNames(t *testing.T) {
	tests := []struct {
		name    string
		query   string
		want    []string
		wantErr bool
	}{
		{name: "label_values of a selector with several matchers names its metric", query: `label_values(m{job=~"$job", namespace=~"$namespace"}, hpa_name)`, want: []string{"m"}},
		{name: "label_values of a label alone names no metric", query: `label_values(job)`},
		{name: "query_result names the metrics of its expression", query: `query_result(sum by (job) (n))`, want: []string{"n"}},
		{name: "another form is refused, not passed unchecked", query: `metrics(.*)`, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := grafanaVariableNames(tc.query)
			if (err != nil) != tc.wantErr || !slices.Equal(got, tc.want) {
				t.Errorf("grafanaVariableNames(%q) = %q, %v; want %q, error %t", tc.query, got, err, tc.want, tc.wantErr)
			}
		})
	}
}
