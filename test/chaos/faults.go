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

package chaos

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"math/rand"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// window is a disruption: from the injection to the recovery (the
// component back, a replica leading, external metrics served through the
// API server). Passes and deadlines within it are excused until two
// periods after its end.
type window struct {
	fault      string
	start, end time.Time
	// detail says what happened (pids, leader, the time to recover).
	detail string
}

// timeline records the windows; safe for concurrent use.
type timeline struct {
	mu      sync.Mutex
	windows []window
}

func (t *timeline) add(w window) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.windows = append(t.windows, w)
}

func (t *timeline) all() []window {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]window(nil), t.windows...)
}

// fault is one kind of injection.
type fault struct {
	name string
	do   func(ctx context.Context) (string, error)
	// disrupts says whether passes may stop meanwhile (a certificate
	// rotation must not stop anything).
	disrupts bool
}

func (r *runner) faults() []fault {
	return []fault{
		{"kill -9 kube-apiserver", r.killAPIServer, true},
		{"kill -9 the leader replica", r.killLeader, true},
		{"kill -9 the metrics adapter", r.killAdapter, true},
		{"kill -9 metrics-server", r.killMetricsServer, true},
		{fmt.Sprintf("stall etcd %v (SIGSTOP/SIGCONT)", r.opts.EtcdStall), r.stallEtcd, true},
		{"rotate the webhook certificate", r.rotateWebhookCert, false},
	}
}

// inject goes round the faults, one every InjectEvery, until ctx ends;
// each injection is followed by the wait for recovery.
func (r *runner) inject(ctx context.Context) {
	logger := klog.FromContext(ctx)
	faults := r.faults()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-time.After(r.opts.InjectEvery):
		}
		f := faults[i%len(faults)]
		logger.Info("Injecting", "fault", f.name)
		start := time.Now()
		// A recovery is waited for even after the run's end.
		detail, err := f.do(context.WithoutCancel(ctx))
		if err == nil {
			err = r.recovered(context.WithoutCancel(ctx))
		}
		end := time.Now()
		if err != nil {
			detail += " error: " + err.Error()
		}
		logger.Info("Recovered", "fault", f.name, "took", end.Sub(start).Round(time.Millisecond), "detail", detail)
		if f.disrupts {
			r.timeline.add(window{fault: f.name, start: start, end: end, detail: detail})
		} else {
			r.timeline.add(window{fault: f.name, start: start, end: start, detail: detail})
		}
	}
}

// recovered waits until kube-apiserver is ready, one replica leads, and
// external metrics are served through the API server.
func (r *runner) recovered(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	if err := wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		return r.local.Cluster().APIServerReady(ctx), nil
	}); err != nil {
		return fmt.Errorf("kube-apiserver not ready: %w", err)
	}
	// A leader that could not renew during the fault still reports the
	// lease until it gives up and exits: the recovery is a leader that is
	// ready and still the same process a few seconds later.
	for {
		leader, err := r.env.Controllers.WaitForLeader(ctx, -1)
		if err != nil {
			return err
		}
		if err := r.env.Controllers.WaitReady(ctx, leader); err != nil {
			return err
		}
		pid := r.replicaPID(ctx, leader)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Second):
		}
		if r.env.Controllers.IsLeader(ctx, leader) && pid != 0 && r.replicaPID(ctx, leader) == pid {
			break
		}
	}
	// Start of a running adapter waits for it to be served and Available.
	return r.env.Adapter().Start(ctx)
}

// replicaPID is the process of replica i, 0 when unknown.
func (r *runner) replicaPID(ctx context.Context, i int) int {
	st, err := r.env.Controllers.Control().Replicas(ctx)
	if err != nil || i >= len(st) {
		return 0
	}
	return st[i].PID
}

func (r *runner) killAPIServer(ctx context.Context) (string, error) {
	st, err := r.local.Cluster().KillAPIServer(ctx)
	return fmt.Sprintf("new pid %d", st.PID), err
}

func (r *runner) killLeader(ctx context.Context) (string, error) {
	leader, pid, err := r.env.Controllers.KillLeader(ctx, "KILL")
	if err != nil {
		return "", err
	}
	r.killedReplicas.Add(1)
	newPID, err := r.env.Controllers.Control().WaitRunning(ctx, leader, pid)
	return fmt.Sprintf("replica %d pid %d killed, restarted as pid %d", leader, pid, newPID), err
}

func (r *runner) killAdapter(ctx context.Context) (string, error) {
	a := r.env.Adapter()
	if err := a.Stop(ctx); err != nil {
		return "", err
	}
	select {
	case <-ctx.Done():
	case <-time.After(r.opts.AdapterDown):
	}
	return fmt.Sprintf("down %v", r.opts.AdapterDown), a.Start(ctx)
}

// killMetricsServer kills metrics-server for as long as the adapter's
// outage and starts it again: metrics.k8s.io answers 503 meanwhile. The
// workload's HPAs read External metrics, which must not notice.
func (r *runner) killMetricsServer(ctx context.Context) (string, error) {
	c := r.local.Cluster()
	if err := c.KillMetricsServer(); err != nil {
		return "", err
	}
	select {
	case <-ctx.Done():
	case <-time.After(r.opts.AdapterDown):
	}
	st, err := c.RestartMetricsServer(ctx)
	return fmt.Sprintf("down %v, back as pid %d", r.opts.AdapterDown, st.PID), err
}

func (r *runner) stallEtcd(ctx context.Context) (string, error) {
	c := r.local.Cluster()
	pid, err := c.SignalComponent("etcd", syscall.SIGSTOP)
	if err != nil {
		return "", err
	}
	time.Sleep(r.opts.EtcdStall)
	_, err = c.SignalComponent("etcd", syscall.SIGCONT)
	return fmt.Sprintf("etcd pid %d stopped %v", pid, r.opts.EtcdStall), err
}

// rotateWebhookCert renews the replicas' serving certificate as
// cert-manager would: a new key and certificate, signed by a CA that the
// webhook configuration's caBundle trusts (the cluster CA, added to the
// bundle if missing), written over the files the replicas were started
// with (--tls-cert-file, --tls-private-key-file, read from the
// Supervisor's line in their log; a symlinked Secret volume is written
// through). It then checks that every replica serves the new certificate
// within a few seconds and that admission through the webhook still works.
func (r *runner) rotateWebhookCert(ctx context.Context) (string, error) {
	certFile, keyFile, err := replicaCertFiles(r.env.Config.Replicas[0].LogPath)
	if err != nil {
		return "", err
	}
	cluster := r.local.Cluster()
	if err := r.trustClusterCA(ctx, cluster.CABundle()); err != nil {
		return "", err
	}
	certPEM, keyPEM, err := cluster.IssueServingCert("127.0.0.1")
	if err != nil {
		return "", err
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return "", err
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return "", err
	}
	if err := replaceFiles(map[string][]byte{keyFile: keyPEM, certFile: certPEM}); err != nil {
		return "", err
	}
	serial := leaf.SerialNumber.String()
	for i, ep := range r.env.Config.Replicas {
		var got string
		err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 15*time.Second, true, func(ctx context.Context) (bool, error) {
			got = servedSerial(ep.WebhookPort)
			return got == serial, nil
		})
		if err != nil {
			r.checker.violate(InvWebhookCert, ep.Name, "replica %d serves certificate serial %q on its webhook port 15s after the rotation, want %s", i, got, serial)
		}
	}
	// A dry-run create goes through the validating webhook.
	h := hpa("chaos-webhook-probe", GroupHand, r.opts)
	u, err := toUnstructured(h)
	if err != nil {
		return "", err
	}
	var lastErr error
	err = wait.PollUntilContextTimeout(ctx, time.Second, 15*time.Second, true, func(ctx context.Context) (bool, error) {
		_, lastErr = r.dyn.Resource(v2.GroupVersionResource()).Namespace(Namespace).Create(ctx, u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return lastErr == nil, nil
	})
	if err != nil {
		r.checker.violate(InvWebhookCert, "webhook", "a dry-run create of an HPA fails 15s after the rotation: %v", lastErr)
	}
	return "serial " + serial, nil
}

// replicaCertFiles reads the certificate and key flags of a replica from
// the Supervisor's first "# start" line in its log.
func replicaCertFiles(logPath string) (certFile, keyFile string, err error) {
	f, err := os.Open(logPath)
	if err != nil {
		return "", "", err
	}
	defer func() { _ = f.Close() }()
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		line := s.Text()
		if !strings.HasPrefix(line, "# start ") {
			continue
		}
		for _, arg := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(arg, "--tls-cert-file="); ok {
				certFile = v
			}
			if v, ok := strings.CutPrefix(arg, "--tls-private-key-file="); ok {
				keyFile = v
			}
		}
		break
	}
	if certFile == "" || keyFile == "" {
		return "", "", fmt.Errorf("no --tls-cert-file and --tls-private-key-file in the start line of %s", logPath)
	}
	return certFile, keyFile, nil
}

// replaceFiles writes each file (through symlinks) to a temporary name
// beside it, then renames them all over the old ones.
func replaceFiles(files map[string][]byte) error {
	renames := map[string]string{}
	for path, data := range files {
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			return err
		}
		tmp := filepath.Join(filepath.Dir(target), ".chaos-"+filepath.Base(target))
		if err := os.WriteFile(tmp, data, 0o600); err != nil {
			return err
		}
		renames[tmp] = target
	}
	for tmp, target := range renames {
		if err := os.Rename(tmp, target); err != nil {
			return err
		}
	}
	return nil
}

// trustClusterCA adds the cluster CA to the caBundle of every webhook of
// the ValidatingWebhookConfigurations that call a loopback URL (the local
// replicas), as cert-manager's CA injector updates a bundle.
func (r *runner) trustClusterCA(ctx context.Context, ca []byte) error {
	list, err := r.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for i := range list.Items {
		cfg := &list.Items[i]
		changed := false
		for j := range cfg.Webhooks {
			cc := &cfg.Webhooks[j].ClientConfig
			if cc.URL == nil || !strings.HasPrefix(*cc.URL, "https://127.0.0.1") || bytes.Contains(cc.CABundle, bytes.TrimSpace(ca)) {
				continue
			}
			cc.CABundle = append(append(append([]byte(nil), cc.CABundle...), '\n'), ca...)
			changed = true
		}
		if changed {
			if _, err := r.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Update(ctx, cfg, metav1.UpdateOptions{}); err != nil {
				return fmt.Errorf("adding the cluster CA to %s: %w", cfg.Name, err)
			}
		}
	}
	return nil
}

// servedSerial is the serial of the certificate served on port, "" when
// none answers.
func servedSerial(port int) string {
	d := &net.Dialer{Timeout: 2 * time.Second}
	conn, err := tls.DialWithDialer(d, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // only the serial is read
	if err != nil {
		return ""
	}
	defer func() { _ = conn.Close() }()
	certs := conn.ConnectionState().PeerCertificates
	if len(certs) == 0 {
		return ""
	}
	return certs[0].SerialNumber.String()
}

// handScale scales, one every HandScaleEvery, a random HPA of the hand
// groups to a random count of 1 to 4 other than its own, as kubectl scale
// does (a patch of the scale subresource without precondition), retrying
// through outages.
func (r *runner) handScale(ctx context.Context) {
	logger := klog.FromContext(ctx)
	rng := rand.New(rand.NewSource(r.opts.Seed)) //nolint:gosec // test choices
	m := members(r.opts)
	names := append(append([]string(nil), m[GroupHand]...), m[GroupProm]...)
	if len(names) == 0 {
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(r.opts.HandScaleEvery):
		}
		name := names[rng.Intn(len(names))]
		cur, _ := r.checker.currentReplicas(name)
		n := int32(1 + rng.Intn(4))
		if n == cur {
			n = n%4 + 1
		}
		r.checker.handScaleBegin(name, n)
		patch := []byte(fmt.Sprintf(`{"spec":{"replicas":%d}}`, n))
		var err error
		for attempt := 0; attempt < 60; attempt++ {
			wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			_, err = r.kube.AppsV1().Deployments(Namespace).Patch(wctx, name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "kubectl-scale"}, "scale")
			cancel()
			if err == nil {
				break
			}
			time.Sleep(time.Second)
		}
		if err != nil {
			logger.Error(err, "A scale by hand failed for a minute; both counts stay allowed", "deployment", name, "replicas", n)
			continue
		}
		r.checker.handScaleDone(name, n)
		r.handScales.Add(1)
	}
}

// cycle is one period of the fallback metric's failure.
type cycle struct{ start, end time.Time }

// cycleFallback fails the fallback metric for FallbackFaultOn, serves it
// for FallbackFaultOff, and again, until ctx ends; it leaves the metric
// served.
func (r *runner) cycleFallback(ctx context.Context) {
	logger := klog.FromContext(ctx)
	names := members(r.opts)[GroupFallback]
	set := func(fault string) error {
		return wait.PollUntilContextTimeout(context.WithoutCancel(ctx), time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
			err := r.patchMetrics(ctx, map[string]string{externalKeyPrefix + metricFallback: seriesYAML(names, target, fault)})
			return err == nil, nil
		})
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(r.opts.FallbackFaultOff):
		}
		start := time.Now()
		if err := set("error"); err != nil {
			logger.Error(err, "Failing the fallback metric")
			return
		}
		stopped := false
		select {
		case <-ctx.Done():
			stopped = true
		case <-time.After(r.opts.FallbackFaultOn):
		}
		if err := set(""); err != nil {
			logger.Error(err, "Serving the fallback metric again")
		}
		r.cyclesMu.Lock()
		r.cycles = append(r.cycles, cycle{start: start, end: time.Now()})
		r.cyclesMu.Unlock()
		if stopped {
			return
		}
	}
}

// checkFallbackCycles: in every cycle long enough for it, each fallback
// HPA engaged its fallback.
func (r *runner) checkFallbackCycles(ws []window) {
	r.cyclesMu.Lock()
	cycles := append([]cycle(nil), r.cycles...)
	r.cyclesMu.Unlock()
	c := r.checker
	c.mu.Lock()
	defer c.mu.Unlock()
	P := r.opts.SyncPeriod
	for _, cy := range cycles {
		// The metric fails from cy.start (the adapter sees the ConfigMap
		// within a moment); the controller notices within a period, and
		// engages at the deadline plus a period.
		due := excusedDeadline(cy.start.Add(P+r.opts.FallbackAfter+P+2*time.Second), ws, 2*P)
		if !due.Before(cy.end) {
			continue
		}
		for _, name := range members(r.opts)[GroupFallback] {
			ok := false
			for _, e := range c.fallbackEngaged[name] {
				// An engagement up to an adapter outage before the cycle
				// still holds at its start.
				if !e.Before(cy.start.Add(-r.opts.AdapterDown-2*P)) && !e.After(due) {
					ok = true
				}
			}
			if !ok {
				c.violateLocked(InvFallbackLate, name, "the metric failed from %s to %s, no fallback engaged by %s",
					cy.start.Format(time.RFC3339), cy.end.Format(time.RFC3339), due.Format(time.RFC3339))
			}
		}
	}
}
