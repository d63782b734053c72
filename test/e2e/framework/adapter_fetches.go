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
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// fetchCount is one counter of the adapter's /debug/fetches.
type fetchCount struct {
	API    string `json:"api"`
	Metric string `json:"metric"`
	Count  uint64 `json:"count"`
}

// ExternalFetches is how many times the test metrics adapter has been
// asked for the external metric named metric so far, whatever the answer:
// with one HPA on a metric of its own, how often that HPA was reconciled.
// Only in the local environment (Config.AdapterURL).
func (e *Environment) ExternalFetches(ctx context.Context, metric string) (uint64, error) {
	if e.Config.AdapterURL == "" {
		return 0, fmt.Errorf("the adapter's fetch counters are served only in the local environment")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.Config.AdapterURL+"/debug/fetches", nil)
	if err != nil {
		return 0, err
	}
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{
		InsecureSkipVerify: true, //nolint:gosec // loopback, a certificate of the test cluster's CA for the APIService names
		MinVersion:         tls.VersionTLS12,
	}}}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET /debug/fetches: %s: %s", resp.Status, body)
	}
	var doc struct {
		Fetches []fetchCount `json:"fetches"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return 0, fmt.Errorf("decoding /debug/fetches: %w", err)
	}
	var n uint64
	for _, f := range doc.Fetches {
		if f.API == "external" && f.Metric == metric {
			n += f.Count
		}
	}
	return n, nil
}
