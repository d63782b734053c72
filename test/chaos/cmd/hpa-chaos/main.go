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

// Command hpa-chaos runs make chaos: see package chaos. It prints the
// report, writes it to _output/chaos (latest.txt, latest.json), and exits
// 1 when it counts a violation, 2 when the run itself failed.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"k8s.io/klog/v2"

	"github.com/kube-hpa/kube-hpa/test/chaos"
	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

func main() {
	klog.InitFlags(nil)
	o := chaos.DefaultOptions()
	if err := o.BindFlags(flag.CommandLine); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	out := flag.String("output", "", "directory of the report (default: _output/chaos of the checkout)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := chaos.Run(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos run failed:", err)
		os.Exit(2)
	}
	fmt.Print(rep.String())
	dir := *out
	if dir == "" {
		root := o.RepoRoot
		if root == "" {
			if root, err = localcluster.FindRepoRoot(); err != nil {
				root = "."
			}
		}
		dir = filepath.Join(root, "_output", "chaos")
	}
	if err := rep.WriteFiles(dir); err != nil {
		fmt.Fprintln(os.Stderr, "writing the report:", err)
	}
	if rep.Count() > 0 {
		os.Exit(1)
	}
}
