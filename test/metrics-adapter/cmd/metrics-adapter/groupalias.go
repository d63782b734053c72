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

package main

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// metricsGroups are the groups an alias may stand for: the two the adapter
// serves.
var metricsGroups = map[string]bool{"custom.metrics.k8s.io": true, "external.metrics.k8s.io": true}

// groupAliases maps an API group that an APIService registers for this
// adapter to the metrics group whose API it serves there. A provider of
// KEP-6382's metric sources serves the default API's wire format under a
// group of its own; this adapter does it by reading a request for
// /apis/<alias>/... as one for /apis/<group>/..., so that one binary can be
// the second provider of the e2e suite.
type groupAliases map[string]string

// validate refuses an alias that is not a DNS subdomain, names a metrics
// group, or stands for anything but a metrics group.
func (a groupAliases) validate() error {
	names := make([]string, 0, len(a))
	for alias := range a {
		names = append(names, alias)
	}
	sort.Strings(names)
	for _, alias := range names {
		group := a[alias]
		if errs := validation.IsDNS1123Subdomain(alias); len(errs) > 0 {
			return fmt.Errorf("--group-alias %s=%s: the alias is not a DNS subdomain: %s", alias, group, strings.Join(errs, "; "))
		}
		if metricsGroups[alias] {
			return fmt.Errorf("--group-alias %s=%s: the adapter serves %s already", alias, group, alias)
		}
		if !metricsGroups[group] {
			return fmt.Errorf("--group-alias %s=%s: an alias stands for custom.metrics.k8s.io or external.metrics.k8s.io", alias, group)
		}
	}
	return nil
}

// handler serves a request under an alias as the same request under its
// group, before authentication and authorization see it: they then judge
// what the adapter serves. The aggregator has already authorized the
// caller for the alias's group.
func (a groupAliases) handler(next http.Handler) http.Handler {
	if len(a) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if path, ok := a.rewrite(r.URL.Path); ok {
			r = r.Clone(r.Context())
			r.URL.Path, r.URL.RawPath = path, ""
			r.RequestURI = r.URL.RequestURI()
		}
		next.ServeHTTP(w, r)
	})
}

// rewrite returns path with its alias replaced by its group, and whether
// path was under an alias.
func (a groupAliases) rewrite(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, "/apis/")
	if !ok {
		return path, false
	}
	alias, tail, _ := strings.Cut(rest, "/")
	group, ok := a[alias]
	if !ok {
		return path, false
	}
	if tail == "" && !strings.HasSuffix(rest, "/") {
		return "/apis/" + group, true
	}
	return "/apis/" + group + "/" + tail, true
}
