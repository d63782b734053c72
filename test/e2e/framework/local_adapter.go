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
	"path/filepath"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// groupVersion is an aggregated API.
type groupVersion struct{ group, version string }

// adapterAPIs are the aggregated APIs the test metrics adapter serves.
func adapterAPIs() []groupVersion {
	return []groupVersion{{"external.metrics.k8s.io", "v1beta1"}, {"custom.metrics.k8s.io", "v1beta2"}}
}

// startAdapter runs the test metrics adapter on loopback and registers it
// for both metrics APIs.
func (l *Local) startAdapter(ctx context.Context, kube kubernetes.Interface, dir, binary string) error {
	port, supervisor, err := l.startAdapterInstance(ctx, kube, dir, binary, adapterInstance{
		name: adapterBinary, configMap: l.config.MetricsConfigMap, apis: adapterAPIs(), prometheusURL: l.config.PrometheusURL,
	})
	if err != nil {
		return err
	}
	l.adapter = supervisor
	l.config.AdapterURL = fmt.Sprintf("https://127.0.0.1:%d", port)
	return nil
}

// adapterInstance is one test metrics adapter of the environment.
type adapterInstance struct {
	// name names its log, certificate and process.
	name string
	// configMap holds its values, in the metrics namespace.
	configMap string
	// apis are registered for it; a group other than the two metrics
	// groups is served through --group-alias as aliases says.
	apis          []groupVersion
	aliases       map[string]string
	prometheusURL string
}

// startAdapterInstance runs one adapter on loopback, with its ConfigMap,
// and registers its APIs, waiting until the aggregator finds them
// available.
func (l *Local) startAdapterInstance(ctx context.Context, kube kubernetes.Interface, dir, binary string, a adapterInstance) (int, *Supervisor, error) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: l.config.MetricsNamespace, Name: a.configMap}}
	if _, err := kube.CoreV1().ConfigMaps(cm.Namespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		return 0, nil, fmt.Errorf("creating the metrics ConfigMap %s: %w", a.configMap, err)
	}
	var hosts []string
	for _, api := range a.apis {
		hosts = append(hosts, localcluster.APIServiceServerName(api.group, api.version))
	}
	certFile, keyFile, err := l.writeServingCert(dir, a.name, hosts...)
	if err != nil {
		return 0, nil, err
	}
	ports, err := localcluster.FreePorts(1)
	if err != nil {
		return 0, nil, err
	}
	args := []string{
		"--kubeconfig=" + l.cluster.Kubeconfig(),
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(ports[0]),
		"--tls-cert-file=" + certFile,
		"--tls-private-key-file=" + keyFile,
		"--configmap-namespace=" + l.config.MetricsNamespace,
		"--configmap-name=" + a.configMap,
		"--v=2",
	}
	if a.prometheusURL != "" {
		args = append(args, "--prometheus-url="+a.prometheusURL)
	}
	for alias, group := range a.aliases {
		args = append(args, "--group-alias="+alias+"="+group)
	}
	logPath := filepath.Join(l.cluster.LogDir(), a.name+".log")
	supervisor := StartSupervisor(l.logger.WithName(a.name), []ProcessSpec{{
		Name:    a.name,
		Binary:  binary,
		LogPath: logPath,
		Args:    args,
	}})
	for _, api := range a.apis {
		if err := l.cluster.RegisterAPIService(ctx, api.group, api.version, ports[0], l.cluster.CABundle()); err != nil {
			return 0, supervisor, err
		}
	}
	for _, api := range a.apis {
		if err := l.cluster.WaitAPIServiceAvailable(ctx, api.group, api.version); err != nil {
			return 0, supervisor, fmt.Errorf("%w (adapter log: %s)", err, logPath)
		}
	}
	return ports[0], supervisor, nil
}
