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
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// DeploymentReplicas runs on this machine the hpa-controller-manager
// processes that the pods of a Deployment installed in the cluster (by the
// Helm chart) would run, as the kubelet would run them: the container's
// args, a token of the pod's ServiceAccount (TokenRequest), and the files
// of its Secret volumes, at local paths that the args are rewritten to.
// What a process on a shared host must change is appended to the args:
// --kubeconfig (there is no in-cluster configuration), --bind-address,
// --secure-port and --webhook-port (the replicas share one host), and
// --port, the plain HTTP port the suite probes. kwok runs the Deployment's
// pods in name only.
type DeploymentReplicas struct {
	local      *Local
	kube       kubernetes.Interface
	binary     string
	dir        string
	endpoints  []ReplicaEndpoints
	proxy      *RoundRobin
	supervisor *Supervisor
	starts     int
	args       []string
}

// NewDeploymentReplicas reserves the ports of n replicas and starts the
// round robin in front of their webhooks; the webhook Service of the
// Deployment must have its port (WebhookPort), and ExposeServiceOnLoopback
// makes the API server reach it there.
func (l *Local) NewDeploymentReplicas(n int, dir string) (*DeploymentReplicas, error) {
	kube, err := kubernetes.NewForConfig(l.cluster.RESTConfig())
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	ports, err := localcluster.FreePorts(3 * n)
	if err != nil {
		return nil, err
	}
	r := &DeploymentReplicas{local: l, kube: kube, binary: binaryPath(l.config.RepoRoot, EnvControllerBinary, controllerBinary), dir: dir}
	var backends []string
	for i := range n {
		ep := ReplicaEndpoints{
			Name:        fmt.Sprintf("%s-%s-%d", controllerBinary, filepath.Base(dir), i),
			MetricsPort: ports[3*i],
			WebhookPort: ports[3*i+1],
			SecurePort:  ports[3*i+2],
		}
		ep.LogPath = filepath.Join(l.cluster.LogDir(), ep.Name+".log")
		r.endpoints = append(r.endpoints, ep)
		backends = append(backends, fmt.Sprintf("127.0.0.1:%d", ep.WebhookPort))
	}
	if r.proxy, err = StartRoundRobin(l.logger.WithName("deployment-webhook-proxy"), backends); err != nil {
		return nil, err
	}
	return r, nil
}

// WebhookPort is the loopback port of the replicas' webhooks.
func (r *DeploymentReplicas) WebhookPort() int {
	_, port, _ := strings.Cut(r.proxy.Addr(), ":")
	p, _ := strconv.Atoi(port)
	return p
}

// Args are the arguments the replicas run with: the Deployment's, the
// paths of its volumes rewritten, then the local ones.
func (r *DeploymentReplicas) Args() []string { return r.args }

// Start reads the Deployment and starts its replicas, after stopping those
// of an earlier Start: a changed pod template replaces every pod.
func (r *DeploymentReplicas) Start(ctx context.Context, namespace, name string) error {
	d, err := r.kube.AppsV1().Deployments(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if r.supervisor != nil {
		r.supervisor.Stop()
		r.supervisor = nil
	}
	r.starts++
	podDir := filepath.Join(r.dir, fmt.Sprintf("pod-%d", r.starts))
	args, err := r.podArgs(ctx, d, podDir)
	if err != nil {
		return err
	}
	sa := d.Spec.Template.Spec.ServiceAccountName
	kubeconfig, err := r.local.writeServiceAccountKubeconfig(ctx, r.kube, podDir, namespace, sa)
	if err != nil {
		return err
	}
	r.args = args
	var specs []ProcessSpec
	for _, ep := range r.endpoints {
		local := append(append([]string{}, args...),
			"--kubeconfig="+kubeconfig,
			"--bind-address=127.0.0.1",
			"--port="+strconv.Itoa(ep.MetricsPort),
			"--secure-port="+strconv.Itoa(ep.SecurePort),
			"--webhook-port="+strconv.Itoa(ep.WebhookPort),
		)
		specs = append(specs, ProcessSpec{Name: ep.Name, Binary: r.binary, Args: local, LogPath: ep.LogPath})
	}
	r.supervisor = StartSupervisor(r.local.logger.WithName(filepath.Base(r.dir)), specs)
	return nil
}

// podArgs are the args of the Deployment's one container, with the mount
// paths of its Secret volumes replaced by local copies of the Secrets.
func (r *DeploymentReplicas) podArgs(ctx context.Context, d *appsv1.Deployment, podDir string) ([]string, error) {
	spec := d.Spec.Template.Spec
	if len(spec.Containers) != 1 {
		return nil, fmt.Errorf("deployment %s/%s has %d containers, want one", d.Namespace, d.Name, len(spec.Containers))
	}
	c := spec.Containers[0]
	if len(c.Command) > 0 {
		return nil, fmt.Errorf("deployment %s/%s: a command replaces the image's entrypoint, which runs hpa-controller-manager", d.Namespace, d.Name)
	}
	volumes := map[string]corev1.Volume{}
	for _, v := range spec.Volumes {
		volumes[v.Name] = v
	}
	args := append([]string{}, c.Args...)
	for _, m := range c.VolumeMounts {
		v, ok := volumes[m.Name]
		if !ok || v.Secret == nil {
			return nil, fmt.Errorf("deployment %s/%s: volume %s is not a Secret, which is all the local replicas mount", d.Namespace, d.Name, m.Name)
		}
		local := filepath.Join(podDir, "volumes", m.Name)
		if err := r.writeSecret(ctx, d.Namespace, v.Secret.SecretName, local); err != nil {
			return nil, err
		}
		mount := strings.TrimSuffix(m.MountPath, "/") + "/"
		for i, a := range args {
			args[i] = strings.ReplaceAll(a, mount, local+"/")
		}
	}
	return args, nil
}

// writeSecret writes each key of a Secret as a file of dir, as a Secret
// volume holds them.
func (r *DeploymentReplicas) writeSecret(ctx context.Context, namespace, name, dir string) error {
	s, err := r.kube.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("the Secret of a volume: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for k, v := range s.Data {
		if err := os.WriteFile(filepath.Join(dir, k), v, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// WaitReady waits until every replica answers /readyz.
func (r *DeploymentReplicas) WaitReady(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := &http.Client{Timeout: time.Second}
	for _, ep := range r.endpoints {
		url := fmt.Sprintf("http://127.0.0.1:%d/readyz", ep.MetricsPort)
		err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if err != nil {
				return false, err
			}
			resp, err := client.Do(req)
			if err != nil {
				return false, nil
			}
			_ = resp.Body.Close()
			return resp.StatusCode == http.StatusOK, nil
		})
		if err != nil {
			return fmt.Errorf("%s not ready (log %s): %w", ep.Name, ep.LogPath, err)
		}
	}
	return nil
}

// LogPaths are the replicas' logs.
func (r *DeploymentReplicas) LogPaths() []string {
	var out []string
	for _, ep := range r.endpoints {
		out = append(out, ep.LogPath)
	}
	return out
}

// Stop stops the replicas and their round robin, as deleting the
// Deployment would end its pods.
func (r *DeploymentReplicas) Stop() error {
	if r.supervisor != nil {
		r.supervisor.Stop()
		r.supervisor = nil
	}
	if r.proxy != nil {
		r.proxy.Close()
		r.proxy = nil
	}
	return nil
}

// ExposeServiceOnLoopback turns a Service into one of type ExternalName for
// localhost, keeping its ports: with no kube-proxy, this is how the API
// server of the local environment reaches a webhook or an aggregated API
// on loopback (it resolves such a Service to localhost:port, and still
// verifies the serving certificate for <name>.<namespace>.svc).
func ExposeServiceOnLoopback(ctx context.Context, kube kubernetes.Interface, namespace, name string) error {
	svc, err := kube.CoreV1().Services(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	svc.Spec = corev1.ServiceSpec{
		Type:         corev1.ServiceTypeExternalName,
		ExternalName: "localhost",
		Ports:        svc.Spec.Ports,
	}
	if _, err := kube.CoreV1().Services(namespace).Update(ctx, svc, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("exposing Service %s/%s on loopback: %w", namespace, name, err)
	}
	return nil
}

// WaitWebhook waits until creating an HPA goes through the admission
// webhook (a server-side dry run that only the webhook refuses), for an
// environment whose webhook a spec installed.
func (e *Environment) WaitWebhook(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return e.waitWebhook(ctx)
}
