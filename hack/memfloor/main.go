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

// Command memfloor prints the resident memory of a process that links only
// the libraries an HPA controller run as kube-controller-manager runs its own
// cannot do without (client-go's leader election, events, informers, scale
// and metrics clients; component-base's metrics and gates; the delegated
// authentication and authorization and certificate reload of a secure port)
// and does nothing else: the floor under any such controller's idle memory,
// before its own code and a single HPA. docs/performance.md ("Memory floor")
// compares it with kube-hpa's and upstream's.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	_ "k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	_ "k8s.io/apiserver/pkg/authorization/authorizerfactory"
	_ "k8s.io/apiserver/pkg/server/dynamiccertificates"
	_ "k8s.io/client-go/discovery/cached/memory"
	_ "k8s.io/client-go/kubernetes/typed/apps/v1"
	_ "k8s.io/client-go/kubernetes/typed/autoscaling/v2"
	_ "k8s.io/client-go/kubernetes/typed/coordination/v1"
	_ "k8s.io/client-go/kubernetes/typed/core/v1"
	_ "k8s.io/client-go/kubernetes/typed/events/v1"
	_ "k8s.io/client-go/restmapper"
	_ "k8s.io/client-go/scale"
	_ "k8s.io/client-go/tools/cache"
	_ "k8s.io/client-go/tools/events"
	_ "k8s.io/client-go/tools/leaderelection"
	_ "k8s.io/client-go/tools/leaderelection/resourcelock"
	_ "k8s.io/client-go/tools/record"
	_ "k8s.io/client-go/util/workqueue"
	_ "k8s.io/component-base/cli/flag"
	_ "k8s.io/component-base/featuregate"
	_ "k8s.io/component-base/logs/api/v1"
	_ "k8s.io/component-base/metrics/legacyregistry"
	_ "k8s.io/component-base/metrics/prometheus/restclient"
	_ "k8s.io/component-base/metrics/prometheus/workqueue"
	_ "k8s.io/metrics/pkg/client/clientset/versioned/typed/metrics/v1beta1"
	_ "k8s.io/metrics/pkg/client/custom_metrics"
	_ "k8s.io/metrics/pkg/client/external_metrics"
)

// fields are the lines of /proc/self/status printed: the resident set, its
// anonymous part (heap, stacks) and its file-backed part (the binary's
// pages the package initializers touched).
var fields = []string{"VmRSS", "RssAnon", "RssFile"}

func main() {
	// Every package initializer has run by now: what is resident is what
	// linking the libraries costs before any work.
	f, err := os.Open("/proc/self/status")
	if err != nil {
		fmt.Fprintln(os.Stderr, "memfloor needs Linux's /proc:", err)
		os.Exit(1)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		name, value, ok := strings.Cut(s.Text(), ":")
		for _, want := range fields {
			if ok && name == want {
				fmt.Printf("%-8s %s\n", name, strings.TrimSpace(value))
			}
		}
	}
	if err := s.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "reading /proc/self/status:", err)
		os.Exit(1)
	}
}
