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

package cel

import (
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
)

// GuardHolds reports whether expression is a disjunction (a || b || ...) of which at least
// one operand reads only the gates and is true in states: then the expression is true
// whatever else it reads, and CEL's short-circuit never evaluates the other operands. This
// is the form of a rule that holds only in some gate states, !featureGates.X || (<rule>). An
// operand reads only the gates when it is built from featureGates.<Name>, true, false, !, &&
// and ||; a name that states does not hold is false. An expression that does not parse, or
// whose top is not ||, holds no guard.
func GuardHolds(expression string, states map[string]bool) bool {
	if expression == "" {
		return false
	}
	env, err := parserEnv()
	if err != nil {
		return false
	}
	parsed, iss := env.Parse(expression)
	if iss.Err() != nil {
		return false
	}
	root := parsed.NativeRep().Expr()
	if !isCall(root, operators.LogicalOr) {
		return false
	}
	var holds func(e ast.Expr) bool
	holds = func(e ast.Expr) bool {
		if v, ok := gateValue(e, states); ok {
			return v
		}
		if isCall(e, operators.LogicalOr) {
			for _, arg := range e.AsCall().Args() {
				if holds(arg) {
					return true
				}
			}
		}
		return false
	}
	return holds(root)
}

// isCall reports whether e calls the function (an operator) fn.
func isCall(e ast.Expr, fn string) bool {
	return e.Kind() == ast.CallKind && e.AsCall().FunctionName() == fn && !e.AsCall().IsMemberFunction()
}

// gateValue evaluates e when it reads only the gates (featureGates.<Name>, bool literals,
// !, && and ||); ok is false otherwise.
func gateValue(e ast.Expr, states map[string]bool) (value, ok bool) {
	switch e.Kind() {
	case ast.LiteralKind:
		b, isBool := e.AsLiteral().(types.Bool)
		return bool(b), isBool
	case ast.SelectKind:
		sel := e.AsSelect()
		if op := sel.Operand(); !sel.IsTestOnly() && op.Kind() == ast.IdentKind && op.AsIdent() == FeatureGatesVarName {
			return states[sel.FieldName()], true
		}
		return false, false
	case ast.CallKind:
		call := e.AsCall()
		if call.IsMemberFunction() {
			return false, false
		}
		args := call.Args()
		switch call.FunctionName() {
		case operators.LogicalNot:
			if len(args) != 1 {
				return false, false
			}
			v, ok := gateValue(args[0], states)
			return !v, ok
		case operators.LogicalAnd, operators.LogicalOr:
			and := call.FunctionName() == operators.LogicalAnd
			result := and
			for _, a := range args {
				v, ok := gateValue(a, states)
				if !ok {
					return false, false
				}
				if and {
					result = result && v
				} else {
					result = result || v
				}
			}
			return result, true
		}
	}
	return false, false
}
