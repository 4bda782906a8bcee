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

package policies

import (
	"fmt"
	"math"

	celconfig "k8s.io/apiserver/pkg/apis/cel"
)

// The policies' CEL cost per write. A stock kube-apiserver stops each CEL expression of an
// admission policy at celconfig.PerCallLimit cost units and refuses the write (the policies'
// failurePolicy is Fail), so what a write may cost is bounded, and the generator says where a
// CRD's own bounds (maxItems) do not keep every write within it.
//
// Everything the policies do is linear in the object, but for one thing: pairing the items of
// a list without keys with its stored items by content compares every new item with every
// stored one. The pairing is skipped where it cannot matter, in one pass each: a list left as
// stored, a list none of whose stored items holds a value at a path that is not live, every
// item equal to the stored one at its index outside the gated paths, or no item equal to any
// stored one. What is left is a list whose items the write moved while its stored items hold
// values at disabled paths: about pairingUnitsPerItemSquared × n² cost units for n items
// (measured with the API server's own CEL library: 16-item lists of Gateway API's HTTPRoute
// filters cost 20,000 to 31,000 units each).
const pairingUnitsPerItemSquared = 100

// pairingBounds lists, for each list without keys whose items the policies pair, how many of
// its instances a single write can re-pair within the API server's limit, where the CRD's
// maxItems allow a write to need more, or do not bound it.
func (g *gen) pairingBounds() {
	for _, p := range g.walker.pairings {
		list := p.steps[len(p.steps)-1].node
		if list == nil || list.ValueValidation == nil || list.ValueValidation.MaxItems == nil {
			g.differ(pathString(p.prefix)+"[*]", "", fmt.Sprintf("the items of this list without keys are paired with the stored items by content, at a CEL cost that grows with the square of the items; the CRD sets no maxItems here, so a write that moves items of long lists whose stored items hold values at disabled paths can exceed the API server's limit of %d cost units per expression and be refused (nothing stored, nothing lost); our server accepts it: set maxItems", celconfig.PerCallLimit))
			continue
		}
		n := *list.ValueValidation.MaxItems
		perList := pairingUnitsPerItemSquared * n * n
		instances, bounded := int64(1), true
		for i, st := range p.steps[:len(p.steps)-1] {
			if !st.Wildcard {
				continue
			}
			// A wildcard's node is the item; the bound is on the list or map, the step before.
			m := int64(0)
			if i > 0 && p.steps[i-1].node != nil && p.steps[i-1].node.ValueValidation != nil {
				vv := p.steps[i-1].node.ValueValidation
				switch {
				case vv.MaxItems != nil:
					m = *vv.MaxItems
				case vv.MaxProperties != nil:
					m = *vv.MaxProperties
				}
			}
			bounded = bounded && m > 0
			instances *= m
		}
		if bounded && instances*perList <= celconfig.PerCallLimit {
			continue
		}
		fits := celconfig.PerCallLimit / perList
		if fits == 0 {
			items := int64(math.Sqrt(float64(celconfig.PerCallLimit / pairingUnitsPerItemSquared)))
			g.differ(pathString(p.prefix)+"[*]", "", fmt.Sprintf("the items of this list without keys (maxItems %d) are paired with the stored items by content, at about %d × n² CEL cost units for n items where the write moved its items and its stored items hold values at disabled paths; the API server stops an expression at %d units, so such a write to a list of more than about %d items is refused (nothing stored, nothing lost), where our server accepts it; a write that leaves the list as stored, edits its items in place, or whose stored items hold no such value costs next to nothing", n, pairingUnitsPerItemSquared, celconfig.PerCallLimit, items))
			continue
		}
		g.differ(pathString(p.prefix)+"[*]", "", fmt.Sprintf("the items of this list without keys (maxItems %d) are paired with the stored items by content, at about %d CEL cost units per list where the write moved its items and its stored items hold values at disabled paths; the API server stops an expression at %d units, so a single write that does that to more than about %d of these lists is refused (nothing stored, nothing lost), where our server accepts it; a write that leaves a list as stored, edits its items in place, or whose stored items hold no such value costs next to nothing", n, perList, celconfig.PerCallLimit, fits))
	}
}
