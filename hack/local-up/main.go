// Command local-up is `make run`: it starts the local control plane built
// from the upstream binaries, the test metrics adapter and two replicas of
// hpa-controller-manager (both new feature gates on), applies the example
// HPAs of deploy/examples with the Deployments they scale, prints what to
// try, and stops everything on Ctrl-C.
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
	klog.InitFlags(nil)
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *syncPeriod); err != nil {
		fmt.Fprintln(os.Stderr, "local-up:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, syncPeriod time.Duration) error {
	root, err := localcluster.FindRepoRoot()
	if err != nil {
		return err
	}
	local, err := framework.StartLocal(ctx, framework.LocalOptions{
		RepoRoot:   root,
		Replicas:   2,
		SyncPeriod: syncPeriod,
		FeatureGates: map[string]bool{
			"HPAExternalMetricFallback":         true,
			"HPAExternalMetricFallbackStrategy": true,
			"HPAScaleToZero":                    true,
		},
	})
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
	printWhatToTry(local)
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
		if out, err := cluster.Kubectl("-n", "default", "create", "deployment", t.deployment, "--image=registry.k8s.io/pause:3.10", "--replicas=1"); err != nil {
			return fmt.Errorf("creating deployment %s: %w\n%s", t.deployment, err, out)
		}
		metrics = append(metrics, fmt.Sprintf(`{"labels":{"queue":%q},"value":"40"}`, t.metricSelector))
	}
	patch := fmt.Sprintf(`{"data":{"external.queue_depth":%q}}`, "["+strings.Join(metrics, ",")+"]")
	if out, err := cluster.Kubectl("-n", cfg.MetricsNamespace, "patch", "configmap", cfg.MetricsConfigMap, "--type=merge", "-p", patch); err != nil {
		return fmt.Errorf("setting example metric values: %w\n%s", err, out)
	}
	if out, err := cluster.Kubectl("apply", "-f", filepath.Join(root, "deploy", "examples")); err != nil {
		return fmt.Errorf("applying deploy/examples: %w\n%s", err, out)
	}
	return nil
}

func printWhatToTry(local *framework.Local) {
	cfg := local.Config()
	kubectl := fmt.Sprintf("%s --kubeconfig=%s", cfg.Kubectl, cfg.Kubeconfig)
	fmt.Printf(`
kube-hpa is running on a local control plane.

  kubeconfig:  %s
  kubectl:     %s
  logs:        %s

Try:

  # watch the example HPAs (the Fallback and ScaledToZero columns too)
  %s get xhpa -A -w

  # simulate an outage of the metrics provider: every external metric fails
  %s -n %s patch configmap %s --type=merge -p '{"data":{"fault.external":"error"}}'
  #   after failureDurationSeconds the fallbacks engage:
  %s describe xhpa queue-worker-fallback

  # bring the metric back
  %s -n %s patch configmap %s --type=merge -p '{"data":{"fault.external":null}}'

Press Ctrl-C to stop everything.
`, cfg.Kubeconfig, cfg.Kubectl, cfg.LogDir,
		kubectl, kubectl, cfg.MetricsNamespace, cfg.MetricsConfigMap, kubectl, kubectl, cfg.MetricsNamespace, cfg.MetricsConfigMap)
}
