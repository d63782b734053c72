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
	"net/http"

	"k8s.io/apimachinery/pkg/util/sets"
	genericfilters "k8s.io/apiserver/pkg/endpoints/filters"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/kubernetes/scheme"
)

// withDelegatedAuth puts handler behind the API server's own filters:
// who is asking (a bearer token checked by TokenReview, a client
// certificate, a front proxy's headers, or no one: system:anonymous), then
// whether they may (the always-allowed paths, else a SubjectAccessReview
// of a non-resource "get /metrics"). An unknown token gets 401; a known or
// anonymous user without the permission gets 403, as from
// kube-controller-manager.
func withDelegatedAuth(handler http.Handler, authn server.AuthenticationInfo, authz server.AuthorizationInfo) http.Handler {
	h := genericfilters.WithAuthorization(handler, authz.Authorizer, scheme.Codecs)
	h = genericfilters.WithAuthentication(h, authn.Authenticator, genericfilters.Unauthorized(scheme.Codecs), authn.APIAudiences, authn.RequestHeaderConfig)
	// Authorization asks about the request's path and verb, which this
	// resolver derives (every path served here is a non-resource one).
	return genericfilters.WithRequestInfo(h, &request.RequestInfoFactory{
		APIPrefixes:          sets.NewString("api", "apis"),
		GrouplessAPIPrefixes: sets.NewString("api"),
	})
}
