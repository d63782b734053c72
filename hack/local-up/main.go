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

// Command local-up is `make run`: it starts the local control plane built
// from the upstream binaries, the test metrics adapter and two replicas of
// hpa-controller-manager (both new feature gates on), applies the example
// HPAs of deploy/examples with the Deployments they scale, prints what to
// try, and stops everything on Ctrl-C.
//
// With -intree (`make run INTREE=1`) it starts the in-tree mode instead:
// the kube-apiserver and kube-controller-manager of `make intree`, which
// serve the fallback in native autoscaling/v2 and apply it in
// kube-controller-manager's own HPA controller (HPAExternalMetricFallback
// on both), the metrics adapter and no hpa-controller-manager; the examples
// are the native ones of deploy/examples/native.
//
// With -metrics=prometheus (`make run METRICS=prometheus`) the examples'
// metric comes from a real Prometheus instead of the adapter's ConfigMap
// values: Prometheus scrapes an exporter of gauges that a person sets with
// curl, the adapter answers queue_depth with a PromQL query over them, and
// a small control stops and starts Prometheus to show the fallback.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"k8s.io/klog/v2"

	"github.com/kube-hpa/kube-hpa/test/e2e/framework"
	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// exampleTargets are the Deployments deploy/examples scale, with the
// external metric value each example starts from.
var exampleTargets = []struct{ deployment, metricSelector string }{
	{"queue-worker", "orders"},
	{"batch-consumer", "batch"},
	{"events-consumer", "events"},
}

func main() {
	syncPeriod := flag.Duration("sync-period", 15*time.Second, "the controllers' --horizontal-pod-autoscaler-sync-period")
	inTree := flag.Bool("intree", false, "the in-tree mode: kube-apiserver and kube-controller-manager of make intree, native example HPAs, no hpa-controller-manager")
	metrics := flag.String("metrics", "configmap", `where the examples' metric comes from: "configmap" (the test adapter's values) or "prometheus" (a PromQL query to a local Prometheus)`)
	klog.InitFlags(nil)
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	mode := framework.ModeCRD
	if *inTree {
		mode = framework.ModeInTree
	}
	if *metrics != "configmap" && *metrics != "prometheus" {
		fmt.Fprintf(os.Stderr, "local-up: -metrics=%q: want configmap or prometheus\n", *metrics)
		os.Exit(2)
	}
	if err := run(ctx, mode, *syncPeriod, *metrics == "prometheus"); err != nil {
		fmt.Fprintln(os.Stderr, "local-up:", err)
		os.Exit(1)
	}
}

// options are the local environment of mode: every feature gate the
// components of the mode know, on.
func options(root string, mode framework.Mode, syncPeriod time.Duration, prometheus bool) framework.LocalOptions {
	opts := framework.LocalOptions{
		RepoRoot:   root,
		Mode:       mode,
		Replicas:   2,
		SyncPeriod: syncPeriod,
		Prometheus: prometheus,
		FeatureGates: map[string]bool{
			"HPAExternalMetricFallback":         true,
			"HPAExternalMetricFallbackStrategy": true,
			"HPAConfigurableSyncPeriod":         true,
			"KubeHPADecisionTrace":              true,
			"HPAScaleToZero":                    true,
			"HPAMetricSource":                   true,
		},
	}
	if mode == framework.ModeInTree {
		// The in-tree series carry KEP-5679, KEP-6382 and KEP-6003:
		// kube-apiserver and kube-controller-manager would refuse the gates
		// of kube-hpa's own extensions.
		opts.FeatureGates = map[string]bool{"HPAExternalMetricFallback": true, "HPAScaleToZero": true, "HPAMetricSource": true, "HPAConfigurableSyncPeriod": true}
	}
	return opts
}

func run(ctx context.Context, mode framework.Mode, syncPeriod time.Duration, prometheus bool) error {
	root, err := localcluster.FindRepoRoot()
	if err != nil {
		return err
	}
	local, err := framework.StartLocal(ctx, options(root, mode, syncPeriod, prometheus))
	if err != nil {
		return err
	}
	defer func() {
		fmt.Println("\nStopping the local cluster...")
		if err := local.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "local-up: stopping:", err)
		}
	}()
	if err := applyExamples(local, root); err != nil {
		return err
	}
	if !prometheus {
		printWhatToTry(local)
		<-ctx.Done()
		return nil
	}
	if err := applyPrometheusMetrics(local, 40); err != nil {
		return err
	}
	control, err := startPrometheusControl(ctx, local.Prometheus())
	if err != nil {
		return err
	}
	defer func() { _ = control.Close() }()
	printWhatToTryWithPrometheus(local, control)
	<-ctx.Done()
	return nil
}

// applyExamples creates the Deployments the examples target, gives their
// queue_depth metric a value, and applies every example HPA.
func applyExamples(local *framework.Local, root string) error {
	cfg := local.Config()
	cluster := local.Cluster()
	var metrics []string
	for _, t := range exampleTargets {
		if err := createDeployment(cluster, t.deployment); err != nil {
			return err
		}
		metrics = append(metrics, fmt.Sprintf(`{"labels":{"queue":%q},"value":"40"}`, t.metricSelector))
	}
	// The CPU example's pods request CPU: utilization is a share of it.
	if err := createDeployment(cluster, cpuExampleTarget); err != nil {
		return err
	}
	if out, err := cluster.Kubectl("-n", "default", "set", "resources", "deployment", cpuExampleTarget, "--requests=cpu=100m"); err != nil {
		return fmt.Errorf("setting the CPU request of %s: %w\n%s", cpuExampleTarget, err, out)
	}
	patch := fmt.Sprintf(`{"data":{"external.queue_depth":%q}}`, "["+strings.Join(metrics, ",")+"]")
	if out, err := cluster.Kubectl("-n", cfg.MetricsNamespace, "patch", "configmap", cfg.MetricsConfigMap, "--type=merge", "-p", patch); err != nil {
		return fmt.Errorf("setting example metric values: %w\n%s", err, out)
	}
	dir := examplesDir(cfg.Mode)
	if out, err := cluster.Kubectl("apply", "-f", filepath.Join(root, filepath.FromSlash(dir))); err != nil {
		return fmt.Errorf("applying %s: %w\n%s", dir, err, out)
	}
	return nil
}

// cpuExampleTarget is the Deployment of deploy/examples/cpu-utilization.yaml.
const cpuExampleTarget = "php-apache"

// createDeployment creates a Deployment of one pause pod in namespace default.
func createDeployment(cluster *localcluster.Cluster, name string) error {
	if out, err := cluster.Kubectl("-n", "default", "create", "deployment", name, "--image=registry.k8s.io/pause:3.10", "--replicas=1"); err != nil {
		return fmt.Errorf("creating deployment %s: %w\n%s", name, err, out)
	}
	return nil
}

// examplesDir holds the examples of mode: the extended kind, or native
// autoscaling/v2 with the fallback, which only the in-tree mode serves.
// kubectl apply -f of a directory does not descend into the native one.
func examplesDir(mode framework.Mode) string {
	if mode == framework.ModeInTree {
		return "deploy/examples/native"
	}
	return "deploy/examples"
}

func printWhatToTry(local *framework.Local) {
	cfg := local.Config()
	kubectl := fmt.Sprintf("%s --kubeconfig=%s", cfg.Kubectl, cfg.Kubeconfig)
	// The extended kind's short name, or native autoscaling/v2's.
	hpa, where := "xhpa", "hpa-controller-manager"
	if cfg.Mode == framework.ModeInTree {
		hpa, where = "hpa", "kube-controller-manager (in-tree mode)"
	}
	fmt.Printf(`
kube-hpa is running in %s on a local control plane.

  kubeconfig:  %s
  kubectl:     %s
  logs:        %s

Try:

  # watch the example HPAs
  %s get %s -A -w

  # simulate an outage of the metrics provider: every external metric fails
  %s -n %s patch configmap %s --type=merge -p '{"data":{"fault.external":"error"}}'
  #   after failureDurationSeconds the fallbacks engage:
  %s get %s queue-worker-fallback -o yaml   # status.currentMetrics[].external.fallbackStatus

  # bring the metric back
  %s -n %s patch configmap %s --type=merge -p '{"data":{"fault.external":null}}'

  # load php-apache's pod (250m of CPU, 250%% of its request: 5 pods bring it to 50%%);
  # metrics-server reads it from kwok's emulated kubelet within 20s
  %s -n default annotate pods -l app=php-apache kwok.x-k8s.io/usage-cpu=250m --overwrite
  %s top pods -n default

Press Ctrl-C to stop everything.
`, where, cfg.Kubeconfig, cfg.Kubectl, cfg.LogDir,
		kubectl, hpa, kubectl, cfg.MetricsNamespace, cfg.MetricsConfigMap, kubectl, hpa, kubectl, cfg.MetricsNamespace, cfg.MetricsConfigMap,
		kubectl, kubectl)
}
