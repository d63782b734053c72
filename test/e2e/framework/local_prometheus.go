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
	"errors"
	"path/filepath"

	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// startPrometheus starts the environment's exporter and a Prometheus that
// scrapes it (LocalOptions.Prometheus), before the metrics adapter, which
// then queries it by default.
func (l *Local) startPrometheus(ctx context.Context, root, dir string) error {
	exporter, err := localcluster.StartExporter()
	if err != nil {
		return err
	}
	l.exporter = exporter
	prom, err := localcluster.StartPrometheus(ctx, localcluster.PrometheusOptions{
		Binary:  binaryPath(root, EnvPrometheusBinary, prometheusBinary),
		Dir:     filepath.Join(dir, "prometheus"),
		LogPath: filepath.Join(l.cluster.LogDir(), "prometheus.log"),
		Targets: []string{exporter.Addr()},
	})
	if err != nil {
		return err
	}
	l.prometheus = prom
	l.config.PrometheusURL = prom.URL()
	l.config.ExporterURL = exporter.URL()
	return nil
}

// stopPrometheus stops what startPrometheus started.
func (l *Local) stopPrometheus() error {
	var errs []error
	if l.prometheus != nil {
		errs = append(errs, l.prometheus.Close())
	}
	if l.exporter != nil {
		errs = append(errs, l.exporter.Close())
	}
	return errors.Join(errs...)
}

// Prometheus is the environment's Prometheus; nil without
// LocalOptions.Prometheus.
func (l *Local) Prometheus() *localcluster.Prometheus { return l.prometheus }

// Exporter is the exporter the environment's Prometheus scrapes; nil
// without LocalOptions.Prometheus.
func (l *Local) Exporter() *localcluster.Exporter { return l.exporter }
