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

package stockpolicies

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// orderCRD is a kind of its own for TestInstallOrder: it must not exist before the test.
const orderCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: orders.stockpolicies.example.com}
spec:
  group: stockpolicies.example.com
  scope: Namespaced
  names: {plural: orders, singular: order, kind: Order}
  customFeatureGates:
    featureGates:
    - {name: SecretGate, preRelease: alpha, fieldPaths: ['.spec.secret']}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              image: {type: string}
              secret: {type: string}
`

// TestInstallOrder installs a gated kind on stock in the order docs/guides/stock-clusters.md gives
// (the parameter kind, then the policies with the parameter object, then the CRD) and writes
// to the kind from the moment its CRD is applied: no write is ever served ungated. Every
// create is either refused (while the server publishes the new kind) or stored without the
// value at the disabled path.
func TestInstallOrder(t *testing.T) {
	installed(t) // the parameter kind is installed
	b := backendByName(t, backendStock)
	generate(t, "orders.stockpolicies.example.com", []byte(orderCRD)).installOnStock(t, b)
	c := &crdInfo{name: "orders.stockpolicies.example.com", group: "stockpolicies.example.com", version: "v1", resource: "orders", kind: "Order"}
	stored, refused := 0, 0
	deadline := time.Now().Add(60 * time.Second)
	for n := 0; stored < 5 && time.Now().Before(deadline); n++ {
		name := fmt.Sprintf("order-%d", n)
		a := b.request(http.MethodPost, objectPath(c, "default", "", ""), nil, "application/json",
			object(c, "default", name, `{"spec":{"image":"a","secret":"s3cr3t"}}`))
		if a.code != http.StatusCreated {
			refused++
			time.Sleep(20 * time.Millisecond)
			continue
		}
		stored++
		obj, err := b.etcdObject(c, "default", name)
		if err != nil {
			t.Fatal(err)
		}
		if _, has := lookup(obj, "spec", "secret"); has {
			t.Errorf("create %s (attempt %d after the CRD was applied) stored .spec.secret while SecretGate is off: the kind was served ungated", name, n+1)
		}
	}
	t.Logf("after the CRD was applied: %d creates refused while the kind was being published, %d stored", refused, stored)
	if stored == 0 {
		t.Errorf("no create was stored within 60s: the kind never became usable")
	}
}
