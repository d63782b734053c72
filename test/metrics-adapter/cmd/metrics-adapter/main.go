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

// Command metrics-adapter serves external.metrics.k8s.io/v1beta1 and
// custom.metrics.k8s.io/v1beta2 as an aggregated API server whose metric
// values and faults come from one ConfigMap (kube-hpa-system/test-metrics by
// default), for the tests and the demo of kube-hpa. See README.md of the
// test/metrics-adapter module for the ConfigMap's format.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/pflag"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/component-base/logs"
	"k8s.io/klog/v2"
)

func main() {
	logs.InitLogs()
	defer logs.FlushLogs()

	fs := pflag.NewFlagSet("metrics-adapter", pflag.ExitOnError)
	o := newOptions(fs)
	logs.AddFlags(fs)
	if err := fs.Parse(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	o.complete()

	ctx := klog.NewContext(genericapiserver.SetupSignalContext(), klog.Background())
	if err := run(ctx, o); err != nil {
		klog.FromContext(ctx).Error(err, "Test metrics adapter failed")
		logs.FlushLogs()
		os.Exit(1)
	}
}
