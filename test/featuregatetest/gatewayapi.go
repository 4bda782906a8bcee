/*
Copyright 2026 The Kubernetes Authors.

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

package featuregatetest

import (
	"fmt"
	"strings"
)

// The HTTPRoute of the lossless-disable tests (test/e2e on our server, test/stockpolicies on
// both backends): named lossless in default, at one host, using two experimental fields of
// Gateway API v1.4.0's set (examples/gateway-api), whose gates are HTTPRouteRulesRetry and
// HTTPRouteRulesSessionPersistence.
const losslessRoute = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: lossless, namespace: default}
spec:
  parentRefs: [{name: gw}]
  hostnames: [HOST]
  rules:
  - backendRefs: [{name: svc, port: 8080}]
`

// LosslessRoute is that route at host as a user of the experimental channel writes it, with
// retry (attempts as given) and sessionPersistence in its rule; with experimental false, as a
// user of the standard channel writes it, without them.
func LosslessRoute(host string, attempts int, experimental bool) string {
	route := strings.ReplaceAll(losslessRoute, "HOST", host)
	if experimental {
		route += fmt.Sprintf("    retry: {attempts: %d, codes: [503], backoff: 100ms}\n", attempts) +
			"    sessionPersistence: {sessionName: s, type: Cookie}\n"
	}
	return route
}

// LosslessRouteValues is what the first rule of the route's spec holds of retry and
// sessionPersistence: only the fields it has.
func LosslessRouteValues(spec map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	rules, _ := spec["rules"].([]interface{})
	if len(rules) == 0 {
		return out
	}
	rule, _ := rules[0].(map[string]interface{})
	for _, f := range []string{"retry", "sessionPersistence"} {
		if v, ok := rule[f]; ok {
			out[f] = v
		}
	}
	return out
}
