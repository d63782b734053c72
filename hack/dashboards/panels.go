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
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/grafana/grafana-foundation-sdk/go/stat"
	"github.com/grafana/grafana-foundation-sdk/go/statetimeline"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"
)

// datasource is the dashboard's Prometheus, chosen by its datasource
// variable, so that the JSON names no instance of anyone's Grafana.
var datasource = common.DataSourceRef{Type: cog.ToPtr("prometheus"), Uid: cog.ToPtr("${datasource}")}

// query is one PromQL target with its legend.
type query struct {
	expr, legend string
}

// target builds a panel's target from q, with refId A, B, ... by position.
func target(i int, q query) *prometheus.DataqueryBuilder {
	return prometheus.NewDataqueryBuilder().
		Datasource(datasource).
		RefId(string(rune('A' + i))).
		Expr(q.expr).
		LegendFormat(q.legend)
}

// series is a time series panel of the queries, w of 24 columns wide.
func series(title, description, unit string, w uint32, qs ...query) *timeseries.PanelBuilder {
	p := timeseries.NewPanelBuilder().
		Title(title).
		Description(description).
		Datasource(datasource).
		Unit(unit).
		Min(0).
		Height(8).
		Span(w).
		Legend(common.NewVizLegendOptionsBuilder().
			DisplayMode(common.LegendDisplayModeTable).
			Placement(common.LegendPlacementBottom).
			ShowLegend(true).
			Calcs([]string{"lastNotNull", "max"}))
	for i, q := range qs {
		p.WithTarget(target(i, q))
	}
	return p
}

// single is a stat panel of one instant query, colored by steps.
func single(title, description, unit string, steps []dashboard.Threshold, q query) *stat.PanelBuilder {
	return stat.NewPanelBuilder().
		Title(title).
		Description(description).
		Datasource(datasource).
		Unit(unit).
		Height(4).
		Span(6).
		GraphMode(common.BigValueGraphModeArea).
		ReduceOptions(common.NewReduceDataOptionsBuilder().Calcs([]string{"lastNotNull"})).
		Thresholds(dashboard.NewThresholdsConfigBuilder().
			Mode(dashboard.ThresholdsModeAbsolute).
			Steps(steps)).
		WithTarget(target(0, q))
}

// redFrom colors a value green, and red from v on.
func redFrom(v float64) []dashboard.Threshold {
	return []dashboard.Threshold{{Color: "green"}, {Value: cog.ToPtr(v), Color: "red"}}
}

// greenAt colors v green and every other value red.
func greenAt(v float64) []dashboard.Threshold {
	return []dashboard.Threshold{{Color: "red"}, {Value: cog.ToPtr(v), Color: "green"}, {Value: cog.ToPtr(v + 1), Color: "red"}}
}

// neutral colors every value alike: a count with no good or bad value.
func neutral() []dashboard.Threshold { return []dashboard.Threshold{{Color: "text"}} }

// states is a state timeline of 0/1 series, 0 shown as off and 1 as on.
func states(title, description, off, on string, q query) *statetimeline.PanelBuilder {
	return statetimeline.NewPanelBuilder().
		Title(title).
		Description(description).
		Datasource(datasource).
		Height(10).
		Span(24).
		ShowValue(common.VisibilityModeNever).
		Mappings([]dashboard.ValueMapping{{ValueMap: &dashboard.ValueMap{
			Type: dashboard.MappingTypeValueToText,
			Options: map[string]dashboard.ValueMappingResult{
				"0": {Text: cog.ToPtr(off), Color: cog.ToPtr("green"), Index: cog.ToPtr[int32](0)},
				"1": {Text: cog.ToPtr(on), Color: cog.ToPtr("orange"), Index: cog.ToPtr[int32](1)},
			},
		}}}).
		WithTarget(target(0, q))
}
