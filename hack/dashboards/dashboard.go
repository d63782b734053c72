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

package main

import (
	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// uid is the dashboard's stable identity, so that a new version replaces
// the one a Grafana already holds instead of adding a second.
const uid = "kube-hpa-overview"

// newDashboard builds kube-hpa's dashboard. It uses the classic dashboard
// model (package dashboard, not dashboardv2): that is what Grafana's
// dashboard sidecar and every Grafana since 9 load from a ConfigMap.
func newDashboard() (dashboard.Dashboard, error) {
	b := dashboard.NewDashboardBuilder("kube-hpa").
		Uid(uid).
		Description("kube-hpa's hpa-controller-manager: fallbacks, metric fetches, passes, its queue and the replicas it wants. Alerts and runbooks: deploy/prometheusrule.yaml, docs/runbooks.").
		Tags([]string{"kube-hpa", "autoscaling"}).
		Refresh("1m").
		Time("now-6h", "now").
		Timezone(common.TimeZoneBrowser).
		Tooltip(dashboard.DashboardCursorSyncCrosshair).
		Variables(variables())
	for _, r := range rows() {
		b.WithRow(dashboard.NewRowBuilder(r.title))
		for _, p := range r.panels {
			b.WithPanel(p)
		}
	}
	d, err := b.Build()
	if err != nil {
		return d, err
	}
	numberPanels(&d)
	return d, nil
}

// numberPanels gives every row and panel an id, in order, so that links to
// a panel (viewPanel=N) stay the same from one generation to the next.
func numberPanels(d *dashboard.Dashboard) {
	for i := range d.Panels {
		id := uint32(i + 1)
		switch p := d.Panels[i]; {
		case p.Panel != nil:
			p.Panel.Id = &id
		case p.RowPanel != nil:
			p.RowPanel.Id = id
		}
	}
}

// variables are the dashboard's choices: the Prometheus, the controller's
// job, the HPAs shown per HPA, and the sync period that the pass rate is
// held against when the controller exports no period per HPA.
func variables() []cog.Builder[dashboard.VariableModel] {
	prom := dashboard.NewDatasourceVariableBuilder("datasource").
		Label("Prometheus").
		Type("prometheus")
	jobs := dashboard.NewQueryVariableBuilder("job").
		Label("Job").
		Description("The job of hpa-controller-manager's /metrics (kube-controller-manager's in in-tree mode).").
		Datasource(datasource).
		Query(text(`label_values(horizontal_pod_autoscaler_controller_num_horizontal_pod_autoscalers, job)`)).
		Refresh(dashboard.VariableRefreshOnTimeRangeChanged).
		Sort(dashboard.VariableSortAlphabeticalAsc)
	namespaces := dashboard.NewQueryVariableBuilder("namespace").
		Label("Namespace").
		Datasource(datasource).
		Query(text(`label_values(horizontal_pod_autoscaler_controller_desired_replicas{` + job + `}, namespace)`)).
		Refresh(dashboard.VariableRefreshOnTimeRangeChanged).
		Sort(dashboard.VariableSortAlphabeticalAsc).
		Multi(true).
		IncludeAll(true).
		AllValue(".*")
	hpas := dashboard.NewQueryVariableBuilder("hpa").
		Label("HPA").
		Datasource(datasource).
		Query(text(`label_values(horizontal_pod_autoscaler_controller_desired_replicas{` + job + `, namespace=~"$namespace"}, hpa_name)`)).
		Refresh(dashboard.VariableRefreshOnTimeRangeChanged).
		Sort(dashboard.VariableSortAlphabeticalAsc).
		Multi(true).
		IncludeAll(true).
		AllValue(".*")
	period := dashboard.NewTextBoxVariableBuilder("sync_period").
		Label("Sync period (s)").
		Description("--horizontal-pod-autoscaler-sync-period in seconds, for HPAs without a period of their own.").
		DefaultValue(text("15"))
	return []cog.Builder[dashboard.VariableModel]{prom, jobs, namespaces, hpas, period}
}

func text(s string) dashboard.StringOrMap { return dashboard.StringOrMap{String: &s} }
