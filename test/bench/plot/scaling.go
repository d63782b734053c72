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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// benchResult is the part of hpa-bench's JSON result (test/bench's
// Result) that the plot reads.
type benchResult struct {
	Machine struct {
		Cores     int     `json:"cores"`
		CPUModel  string  `json:"cpuModel"`
		MemoryGiB float64 `json:"memoryGiB"`
	} `json:"machine"`
	Scaling *struct {
		PodsPerHPA int `json:"podsPerHPA"`
		Sizes      []struct {
			Setup struct {
				HPAs int `json:"hpas"`
			} `json:"setup"`
			Controllers []struct {
				Name         string `json:"name"`
				PeakRSSBytes int64  `json:"peakRSSBytes"`
				Steady       struct {
					CPUPer1000 float64 `json:"controllerCPUSecondsPer1000"`
				} `json:"steady"`
				// Error marks a controller not measured at the size.
				Error string `json:"error"`
			} `json:"controllers"`
		} `json:"sizes"`
	} `json:"scaling"`
}

// series is one controller's points: peak RSS in MiB and controller CPU
// seconds per 1,000 reconciles, against the HPAs.
type series struct {
	name        string
	memory, cpu plotter.XYs
	// missing are the sizes without a point: the controller, or the
	// whole size, did not fit.
	missing []int
}

// legend names the series, and the sizes where its line has no point.
func (se series) legend() string {
	if len(se.missing) == 0 {
		return se.name
	}
	sizes := make([]string, len(se.missing))
	for i, n := range se.missing {
		sizes[i] = strconv.Itoa(n)
	}
	return fmt.Sprintf("%s (not measured at %s HPAs)", se.name, strings.Join(sizes, ", "))
}

// scaling is what the plot shows.
type scaling struct {
	title  string
	sizes  []int
	series []series
}

// readScaling reads the scaling scenario of a result: a series per
// controller, in the order the run measured them, with a point for each
// size where the controller was measured.
func readScaling(r io.Reader) (scaling, error) {
	var res benchResult
	if err := json.NewDecoder(r).Decode(&res); err != nil {
		return scaling{}, fmt.Errorf("decoding the result: %w", err)
	}
	if res.Scaling == nil {
		return scaling{}, errors.New("the result has no scaling scenario (hpa-bench -scaling)")
	}
	m := res.Machine
	s := scaling{title: fmt.Sprintf("hpa-bench scaling: memory and CPU by HPA count, %d pods per HPA; %d cores (%s), %.1f GiB",
		res.Scaling.PodsPerHPA, m.Cores, m.CPUModel, m.MemoryGiB)}
	index := map[string]int{}
	points := 0
	for _, size := range res.Scaling.Sizes {
		s.sizes = append(s.sizes, size.Setup.HPAs)
		for _, c := range size.Controllers {
			i, ok := index[c.Name]
			if !ok {
				i = len(s.series)
				index[c.Name] = i
				s.series = append(s.series, series{name: c.Name})
			}
			if c.Error != "" {
				continue
			}
			x := float64(size.Setup.HPAs)
			s.series[i].memory = append(s.series[i].memory, plotter.XY{X: x, Y: float64(c.PeakRSSBytes) / (1 << 20)})
			s.series[i].cpu = append(s.series[i].cpu, plotter.XY{X: x, Y: c.Steady.CPUPer1000})
			points++
		}
	}
	if points == 0 {
		return scaling{}, errors.New("no size of the scaling scenario has a controller measured")
	}
	for i := range s.series {
		se := &s.series[i]
		for _, n := range s.sizes {
			if !slices.ContainsFunc(se.memory, func(p plotter.XY) bool { return p.X == float64(n) }) {
				se.missing = append(se.missing, n)
			}
		}
	}
	return s, nil
}

// The size of the whole drawing, and the room its title takes.
const (
	plotWidth   = 30 * vg.Centimeter
	plotHeight  = 13 * vg.Centimeter
	titleHeight = vg.Centimeter
)

// drawScaling writes s as an SVG: the title, then two panels side by
// side, memory on the left and CPU on the right.
func drawScaling(s scaling, w io.Writer) error {
	memory, err := panel(s, "Memory: peak RSS", "MiB", func(se series) plotter.XYs { return se.memory })
	if err != nil {
		return err
	}
	cpu, err := panel(s, "CPU per 1,000 reconciles, steady window", "CPU seconds", func(se series) plotter.XYs { return se.cpu })
	if err != nil {
		return err
	}
	canvas := vgsvg.New(plotWidth, plotHeight)
	dc := draw.New(canvas)
	dc.SetColor(memory.BackgroundColor)
	dc.Fill(dc.Rectangle.Path())
	// Left-aligned: a viewer without the font measured here draws the
	// text wider or narrower, which would move a centered title.
	title := text.Style{
		Color:   memory.Title.TextStyle.Color,
		Font:    font.From(plot.DefaultFont, 14),
		XAlign:  draw.XLeft,
		YAlign:  draw.YTop,
		Handler: plot.DefaultTextHandler,
	}
	dc.FillText(title, vg.Point{X: vg.Centimeter, Y: plotHeight - vg.Millimeter*3}, s.title)
	panels := draw.Crop(dc, 0, 0, 0, -titleHeight)
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Centimeter, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 3,
		PadLeft: vg.Millimeter * 3, PadRight: vg.Millimeter * 8}
	plots := [][]*plot.Plot{{memory, cpu}}
	canvases := plot.Align(plots, tiles, panels)
	memory.Draw(canvases[0][0])
	cpu.Draw(canvases[0][1])
	_, err = canvas.WriteTo(w)
	return err
}

// panel is one plot: a line with points for each controller that has
// points, its legend top left, the sizes as the ticks of the HPA axis.
func panel(s scaling, title, yLabel string, points func(series) plotter.XYs) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "HPAs"
	p.Y.Label.Text = yLabel
	p.X.Min, p.Y.Min = 0, 0
	p.X.Tick.Marker = sizeTicks(s.sizes)
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Millimeter*2, -vg.Millimeter
	p.Legend.TextStyle.Font.Size = vg.Points(11)
	p.Add(plotter.NewGrid())
	for i, se := range s.series {
		xys := points(se)
		if len(xys) == 0 {
			continue
		}
		line, glyphs, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("%s of %s: %w", title, se.name, err)
		}
		c := plotutil.DarkColors[i%len(plotutil.DarkColors)]
		line.Color, line.Width = c, vg.Points(2)
		glyphs.Color, glyphs.Shape, glyphs.Radius = c, plotutil.Shape(i), vg.Points(3.5)
		p.Add(line, glyphs)
		p.Legend.Add(se.legend(), line, glyphs)
	}
	// Room above the highest point for the legend, and right of the
	// largest size for its point and tick label.
	p.Y.Max *= 1.25
	p.X.Max *= 1.05
	return p, nil
}

// sizeTicks marks each size on the HPA axis.
func sizeTicks(sizes []int) plot.ConstantTicks {
	var ticks plot.ConstantTicks
	for _, n := range slices.Sorted(slices.Values(sizes)) {
		ticks = append(ticks, plot.Tick{Value: float64(n), Label: strconv.Itoa(n)})
	}
	return ticks
}
