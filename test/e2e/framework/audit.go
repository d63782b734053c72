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

package framework

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
)

// auditPolicy records the metadata of one user's requests and nothing
// else, so that the log stays small and says exactly what the controller
// did with its permissions.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
  users: [%q]
- level: None
`

// auditFlags prepares an audit log of user's requests and returns the
// kube-apiserver flags that write it. The directory sits beside the
// cluster's run directories, so the cluster's pruning removes it with
// them.
func auditFlags(outputDir, user string) (logPath string, flags []string, err error) {
	if err := os.MkdirAll(outputDir, 0o755); err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp(outputDir, fmt.Sprintf("%s-%d-audit-", time.Now().Format("20060102-150405"), os.Getpid()))
	if err != nil {
		return "", nil, err
	}
	policy := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(policy, fmt.Appendf(nil, auditPolicy, user), 0o644); err != nil {
		return "", nil, err
	}
	logPath = filepath.Join(dir, "audit.log")
	return logPath, []string{
		"--audit-policy-file=" + policy,
		"--audit-log-path=" + logPath,
		"--audit-log-format=json",
		"--audit-log-maxbackup=0",
	}, nil
}

// auditEvent is the part of an audit.k8s.io/v1 Event that RBACUsage reads.
type auditEvent struct {
	Stage     string `json:"stage"`
	Verb      string `json:"verb"`
	ObjectRef *struct {
		APIGroup    string `json:"apiGroup"`
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
}

// request is one kind of request: verb, group, resource[/subresource].
type request struct{ verb, group, resource string }

func (r request) String() string {
	g := r.group
	if g == "" {
		g = "core"
	}
	return fmt.Sprintf("%s %s %s", r.verb, g, r.resource)
}

// RBACUsage reads an audit log written under the controller's
// ServiceAccount and tells, for each verb of each rule, how many requests
// it allowed, and which refused requests no rule covers (a permission the
// controller lacks). A verb never used is a candidate for removal, though
// the suite may simply not have exercised it.
func RBACUsage(auditLog string, rules []rbacv1.PolicyRule) (string, error) {
	f, err := os.Open(auditLog)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }()
	allowed, refused := map[request]int{}, map[request]int{}
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<20), 16<<20)
	for scanner.Scan() {
		var e auditEvent
		if err := json.Unmarshal(scanner.Bytes(), &e); err != nil || e.Stage != "ResponseComplete" || e.ObjectRef == nil || e.ResponseStatus == nil {
			continue
		}
		res := e.ObjectRef.Resource
		if e.ObjectRef.Subresource != "" {
			res += "/" + e.ObjectRef.Subresource
		}
		r := request{e.Verb, e.ObjectRef.APIGroup, res}
		if e.ResponseStatus.Code == 403 {
			refused[r]++
		} else {
			allowed[r]++
		}
	}
	if err := scanner.Err(); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, rule := range rules {
		fmt.Fprintf(&b, "rule %v %v:", rule.APIGroups, rule.Resources)
		for _, verb := range rule.Verbs {
			n := 0
			for r, c := range allowed {
				if r.verb == verb && ruleCovers(rule, r) {
					n += c
				}
			}
			if n == 0 {
				fmt.Fprintf(&b, " %s(NEVER USED)", verb)
			} else {
				fmt.Fprintf(&b, " %s(%d)", verb, n)
			}
		}
		b.WriteString("\n")
	}
	var uncovered []string
	for r, c := range refused {
		if !slices.ContainsFunc(rules, func(rule rbacv1.PolicyRule) bool { return ruleCovers(rule, r) }) {
			uncovered = append(uncovered, fmt.Sprintf("%s (%d refused)", r, c))
		}
	}
	sort.Strings(uncovered)
	if len(uncovered) == 0 {
		b.WriteString("every refused request is one that deploy/rbac.yaml grants (refused while the RBAC spec had removed its rule)\n")
	}
	for _, u := range uncovered {
		fmt.Fprintf(&b, "refused and granted by no rule: %s\n", u)
	}
	return b.String(), nil
}

// ruleCovers applies RBAC's matching of groups, resources and verbs.
func ruleCovers(rule rbacv1.PolicyRule, r request) bool {
	if !slices.Contains(rule.Verbs, r.verb) && !slices.Contains(rule.Verbs, rbacv1.VerbAll) {
		return false
	}
	if !slices.Contains(rule.APIGroups, r.group) && !slices.Contains(rule.APIGroups, rbacv1.APIGroupAll) {
		return false
	}
	_, sub, hasSub := strings.Cut(r.resource, "/")
	for _, res := range rule.Resources {
		if res == rbacv1.ResourceAll || res == r.resource || (hasSub && res == "*/"+sub) {
			return true
		}
	}
	return false
}
