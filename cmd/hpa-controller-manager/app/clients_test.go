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

package app

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	eminstall "k8s.io/metrics/pkg/apis/external_metrics/install"
	emv1beta1 "k8s.io/metrics/pkg/apis/external_metrics/v1beta1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/config"
)

const (
	protobuf           = "application/vnd.kubernetes.protobuf"
	protobufOrJSON     = protobuf + "," + runtime.ContentTypeJSON
	externalMetricPath = "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue"
)

func TestNewClientsLeavesTheConfigAsItWas(t *testing.T) {
	cfg := &config.Config{RESTConfig: &rest.Config{
		Host:          "https://127.0.0.1:6443",
		QPS:           20,
		Burst:         30,
		ContentConfig: rest.ContentConfig{ContentType: protobuf, AcceptContentTypes: protobufOrJSON},
	}}
	before := rest.CopyConfig(cfg.RESTConfig)
	if _, err := newClients(cfg); err != nil {
		t.Fatalf("newClients: %v", err)
	}
	if !reflect.DeepEqual(cfg.RESTConfig, before) {
		t.Errorf("newClients changed the shared config:\ngot  %+v\nwant %+v", cfg.RESTConfig, before)
	}
}

// externalMetricsServer answers one external metric in the first content
// type of the Accept header, encoded as custom-metrics-apiserver encodes
// it (a codec factory over the external metrics scheme), and records the
// Accept headers it got.
type externalMetricsServer struct {
	t       *testing.T
	codecs  serializer.CodecFactory
	accepts []string
}

func newExternalMetricsServer(t *testing.T) *externalMetricsServer {
	scheme := runtime.NewScheme()
	eminstall.Install(scheme)
	return &externalMetricsServer{t: t, codecs: serializer.NewCodecFactory(scheme)}
}

func (s *externalMetricsServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	accept := r.Header.Get("Accept")
	s.accepts = append(s.accepts, accept)
	if r.URL.Path != externalMetricPath {
		http.NotFound(w, r)
		return
	}
	mediaType, _, _ := strings.Cut(accept, ",")
	info, ok := runtime.SerializerInfoForMediaType(s.codecs.SupportedMediaTypes(), strings.TrimSpace(mediaType))
	if !ok {
		http.Error(w, "not acceptable: "+accept, http.StatusNotAcceptable)
		return
	}
	list := &emv1beta1.ExternalMetricValueList{Items: []emv1beta1.ExternalMetricValue{{
		MetricName: "queue",
		Timestamp:  metav1.NewTime(time.Unix(1700000000, 0)),
		Value:      resource.MustParse("42"),
	}}}
	body, err := runtime.Encode(s.codecs.EncoderForVersion(info.Serializer, emv1beta1.SchemeGroupVersion), list)
	if err != nil {
		s.t.Errorf("encoding the answer as %s: %v", info.MediaType, err)
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", info.MediaType)
	_, _ = w.Write(body)
}

func TestMetricsClientReadsExternalMetricsInTheConfiguredContentType(t *testing.T) {
	cases := []struct {
		name       string
		content    rest.ContentConfig
		wantAccept string
	}{
		{name: "protobuf, the default", content: rest.ContentConfig{ContentType: protobuf, AcceptContentTypes: protobufOrJSON}, wantAccept: protobufOrJSON},
		{name: "JSON", content: rest.ContentConfig{ContentType: runtime.ContentTypeJSON, AcceptContentTypes: runtime.ContentTypeJSON}, wantAccept: runtime.ContentTypeJSON},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			adapter := newExternalMetricsServer(t)
			srv := httptest.NewServer(adapter)
			defer srv.Close()
			cfg := &config.Config{
				RESTConfig: &rest.Config{Host: srv.URL, ContentConfig: tc.content},
				HPA:        config.HPA{MetricFetchTimeout: 5 * time.Second},
			}
			client, err := newMetricsClient(cfg, clocktesting.NewFakeClock(time.Now()))
			if err != nil {
				t.Fatalf("newMetricsClient: %v", err)
			}
			values, _, err := client.GetExternalMetric(context.Background(), "queue", "default", labels.Everything(), "")
			if err != nil {
				t.Fatalf("GetExternalMetric: %v", err)
			}
			if len(values) != 1 || values[0] != 42000 {
				t.Errorf("values = %v, want [42000] (milli-units)", values)
			}
			if len(adapter.accepts) != 1 || adapter.accepts[0] != tc.wantAccept {
				t.Errorf("Accept headers = %q, want one %q", adapter.accepts, tc.wantAccept)
			}
		})
	}
}
