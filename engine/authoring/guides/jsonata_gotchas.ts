/**
 * Guide `svc://guide/jsonata-gotchas`: JSONata pitfalls as they bite in this service.
 *
 * @module
 */

/** The JSONata pitfalls as they bite in this service, as markdown. */
export const JSONATA_GOTCHAS_GUIDE = `# JSONata gotchas in this service

Every expression in a spec (\`expr\`, \`trigger\`, \`payload\`, view state and display fields) is JSONata 2,
evaluated against the merged document with \`$const\` (the constants) and, in per-element nodes, \`$parent\`
bound. These are the mistakes that cost the most time, with what this service does about them. Try any
expression with \`eval_expression\` before putting it in a spec.

## 1. Missing is not null

A path to a field that does not exist yields *nothing* (JavaScript \`undefined\`), which is different from a
stored \`null\`.

| Expression | \`x\` absent | \`x\` is null |
|---|---|---|
| \`x = null\` | false | true |
| \`x != null\` | false | false |
| \`$exists(x)\` | false | true |
| \`x + 1\` | nothing | error T2001 |
| \`'a' & x\` | \`"a"\` | \`"anull"\` |

Test presence with \`$exists(x)\`. A derivation that yields nothing *removes* its target field; a meta
derivation that yields nothing removes the meta value; a display field that yields nothing is omitted.
Arithmetic on an explicit null is an evaluation error, which rejects the mutation (422).

## 2. Comparisons with a missing operand yield nothing

\`qty > 5\` with \`qty\` absent is neither true nor false: it is nothing. A condition treats nothing as false,
but a **constraint passes** when its expression yields nothing (or null). So:

\`\`\`jsonata
$not(status = 'closed') or $exists(closedAt)
\`\`\`

is the safe way to say "closed implies closedAt"; \`status != 'closed' or ...\` is *false* for a missing
\`status\` and would fail. And \`qty > 0\` as a constraint lets an absent \`qty\` through: write
\`$exists(qty) and qty > 0\` when the field must be there. \`=\` never converts types: \`"5" = 5\` is false.

## 3. One element is not a list

A path that matches one value returns that value, not a one-element list. \`items.name\` is \`"pen"\` for one
item and \`["pen", "ink"]\` for two. That changes what \`$count\`, \`[0]\`, \`in\` and meta \`enum\` see. Wrap the
path in an array constructor to always get a list:

\`\`\`jsonata
[items.name]
\`\`\`

This matters for list-valued derivations (a table or chart expects an array) and for \`enum\` metas.

## 4. Aggregates of nothing

\`$sum([])\` is 0, but \`$sum(items.price)\` with no items is \`$sum\` of nothing, which is nothing: the total
field disappears. \`$average\`, \`$max\` and \`$min\` of an empty list are nothing too. The array constructor
fixes the sum, because absent values vanish from \`[...]\`:

\`\`\`jsonata
$sum([items.price])
\`\`\`

\`$count(missing)\` is 0.

## 5. \`&\` joins text, \`+\` adds numbers

\`'Total: ' & total\` converts the number to text; \`'Total: ' + total\` fails with T2001. \`&\` turns booleans
into \`true\`/\`false\` and a stored null into \`null\`. Use \`$string(x)\` or \`$formatNumber(x, '#,##0.00')\` to
control the text.

## 6. \`$round\` rounds half to even

\`$round(2.5)\` is 2, \`$round(3.5)\` is 4, \`$round(0.125, 2)\` is 0.12. And binary floating point bites
first: \`$round(1.005, 2)\` is 1, because 1.005 is stored as 1.00499999... Compute in the smallest unit
(cents) or accept banker's rounding and write tests with the numbers the engine actually produces. Round
once, at the end, not inside chains of derived values. \`0.1 + 0.2\` is 0.30000000000000004; embedded tests
compare numbers within 1e-9 × max(1, |expected|), but \`eval_expression\` shows the raw value.

## 7. Conditionals

\`cond ? a : b\` is the only conditional. Without \`: b\` the result is nothing when \`cond\` is false (useful
to leave a field absent). Conditionals chain without parentheses, the first true condition wins:

\`\`\`jsonata
score >= 90 ? 'A' : score >= 75 ? 'B' : 'C'
\`\`\`

The condition uses JSONata truthiness: \`0\`, \`""\`, \`false\`, null, nothing, empty lists and empty objects
are false; the string \`"false"\` is true.

## 8. \`=\` compares, \`:=\` binds, there is no \`==\`

\`a == 1\` is a syntax error. Boolean operators are the words \`and\`, \`or\`; negation is the function
\`$not(x)\`. \`!=\` exists. Local variables are bound with \`:=\` inside a block and separated by \`;\`:

\`\`\`jsonata
($rate := $const.vat / 100; $round(net * (1 + $rate), 2))
\`\`\`

## 9. Paths map over arrays

\`items.price\` collects the price of every item. To combine fields per element, map with a parenthesised
step: \`items.(price * qty)\`. Writing \`items.price * items.qty\` fails as soon as there are two items
(T2001: a list is not a number). \`$map(list, function($v, $i) {...})\` gives the index too.

## 10. Filters, indices and where they apply

\`items[0]\` is the first item, \`items[-1]\` the last, \`items[qty > 5]\` the items matching a predicate. An
index applies to the step it follows: \`items[type = 'a'].price[0]\` indexes each single price (so it returns
every price, and \`[1]\` returns nothing); \`(items[type = 'a'].price)[0]\` indexes the list. Likewise sort and slice in parentheses:
\`(items^(>price))[[0..2]]\`. An array literal must be parenthesised before a filter and a further step:
\`([{...}, {...}])[id = 'b'].name\`.

Inside a predicate the context is the element being tested: bare names are *its* fields. To compare with a
field of the root, use \`$$\` (the root) or a variable bound before the filter:

\`\`\`jsonata
$const.plans[id = $$.plan].monthlyFee
\`\`\`

\`$const.plans[id = plan]\` compares each plan's \`id\` with that plan's own (absent) \`plan\` field.

## 11. \`$parent\` is not \`%\`

In a derivation, meta derivation or constraint whose path has \`[*]\`, and in view components inside a
section list, \`$parent\` is a variable bound by the service to the current element. The context is still
the whole document: a bare \`price\` is the root's \`price\`, \`$parent.price\` is the element's. JSONata's own
\`%\` is a parent *step* inside a path (\`items.(%.discount)\` reads the object holding \`items\`); on its own it
is an error. Use \`$parent\` for "this element", \`%\` only inside navigation.

## 12. What the dependency graph can see

The service finds what an expression reads from the names in it: \`items[type = 'a'].qty\` reads
\`$.items[*].type\` and \`$.items[*].qty\`, \`$parent.qty\` reads the element's \`qty\`, \`$const\` reads nothing.
Values computed from strings escape it: \`$lookup($$, fieldName)\` reads a field chosen at run time, so
validation warns (\`$lookup( reads data the dependency graph cannot see\`) and the value may not be
recomputed when that data changes. Prefer a filtered table (\`$const.rates[code = currency].rate\`) or an
explicit path. \`$eval\` is refused (called or passed on): the expression it runs is made at run time, so
nothing it reads can be seen, and one made from data would be code from whoever wrote the data. Likewise a constant removed by an evolution is found by a textual scan for
\`$const.<name>\`; \`$const[...]\` dynamic access is not detected.

Lists generated with \`[1..n]\` are capped at 10 million elements by JSONata.

## 13. Time limits and clock functions

Each evaluation has a budget (\`svc.limits.expression-timeout-ms\`, 1000 ms by default) and a depth limit
(\`svc.limits.expression-max-depth\`, 500). Exceeding either fails the evaluation, which rejects the mutation
(422) and names the node; runaway recursion shows as \`D1012: Evaluation timeout\`. Keep lists bounded and
avoid quadratic work over large arrays.

\`$now()\` and \`$millis()\` read the clock: the value changes without any write, is only refreshed when an
input of the derivation changes, and tests of fields that depend on it (also through other derivations or a
default rule) are reported as not auto-checkable. Store the reference date in a field.

## 14. Evaluation errors at creation

Derivations, metas and defaults also run when a model is created, on the empty (defaulted) document. An
expression that throws on missing input makes creation fail. \`$toMillis\` of a partial date and arithmetic
on null are the usual culprits; guard them: \`startDate ? $toMillis(startDate) : null\`.

## 15. Strings in view fields

View \`text\`, \`value\`, \`delta\`, \`caption\` and \`trend\` are evaluated as JSONata only when they contain a \`$\`;
otherwise they are literal text. \`"total > 100 ? 'high' : 'ok'"\` is shown verbatim; write
\`"$$.total > 100 ? 'high' : 'ok'"\` or use a function (\`$string(total)\`). \`visible\`, \`enabled\`, \`readOnly\`
and \`required\` strings are always evaluated.
`;
