/**
 * Example spec: scaling a recipe to a number of servings, with unit conversion to grams.
 *
 * @module
 */
import type { ModelSpec } from "../../model/types.ts";

/** Recipe scaler: per-ingredient scaling and rounding, unit conversion, nutrition per serving. */
export const RECIPE_SCALER: ModelSpec = {
  _name: "Recipe scaler",
  _description: "Scales every ingredient from the recipe's servings to the servings wanted, rounding the " +
    "way a cook measures (whole pieces up, spoons and cups to the quarter, the rest to one decimal), " +
    "converts each amount to grams (volumes through an optional density, pieces through their weight) " +
    "and totals the energy per serving. The caller receives a shopping list when the recipe is rescaled.",
  id: "recipe-scaler",
  version: "1.0.0",
  schema: {
    type: "object",
    properties: {
      title: { type: "string" },
      baseServings: { type: "integer", minimum: 1 },
      targetServings: { type: "integer", minimum: 1 },
      ingredients: {
        type: "array",
        items: {
          type: "object",
          properties: {
            name: { type: "string" },
            quantity: { type: "number", minimum: 0 },
            unit: { type: "string", enum: ["g", "kg", "ml", "l", "tsp", "tbsp", "cup", "piece"] },
            densityGPerMl: { type: "number", exclusiveMinimum: 0 },
            gramsPerPiece: { type: "number", exclusiveMinimum: 0 },
            kcalPer100g: { type: "number", minimum: 0 },
            scaledQuantity: { type: "number", readOnly: true },
            grams: { type: "number", readOnly: true },
            kcal: { type: "number", readOnly: true },
          },
        },
      },
      scaleFactor: { type: "number", readOnly: true },
      totalGrams: { type: "number", readOnly: true },
      totalKcal: { type: "number", readOnly: true },
      kcalPerServing: { type: "number", readOnly: true },
      shoppingList: { type: "array", readOnly: true, items: { type: "string" } },
    },
  },
  constants: {
    units: [
      { unit: "g", kind: "mass", factor: 1 },
      { unit: "kg", kind: "mass", factor: 1000 },
      { unit: "ml", kind: "volume", factor: 1 },
      { unit: "l", kind: "volume", factor: 1000 },
      { unit: "tsp", kind: "volume", factor: 5 },
      { unit: "tbsp", kind: "volume", factor: 15 },
      { unit: "cup", kind: "volume", factor: 240 },
      { unit: "piece", kind: "count", factor: 1 },
    ],
    spoonUnits: ["tsp", "tbsp", "cup"],
    maxScale: 8,
  },
  defaultValues: [
    { path: "$", expr: "{'baseServings': 4, 'targetServings': 4}" },
    { path: "$.ingredients[*]", expr: "{'quantity': 0, 'unit': 'g'}" },
  ],
  derivations: [
    { path: "$.scaleFactor", expr: "targetServings / baseServings" },
    {
      path: "$.ingredients[*].scaledQuantity",
      expr: "($q := $parent.quantity * scaleFactor; " +
        "$parent.unit = 'piece' ? $ceil($q) : $parent.unit in $const.spoonUnits ? $round($q * 4) / 4 : $round($q, 1))",
      description: "Whole pieces round up, spoons and cups to the nearest quarter, the rest to one decimal.",
    },
    {
      path: "$.ingredients[*].grams",
      expr: "($u := $const.units[unit = $parent.unit]; " +
        "$round($u.kind = 'mass' ? $parent.scaledQuantity * $u.factor : " +
        "$u.kind = 'volume' ? $parent.scaledQuantity * $u.factor * ($exists($parent.densityGPerMl) ? " +
        "$parent.densityGPerMl : 1) : $parent.scaledQuantity * $parent.gramsPerPiece))",
      description: "Weight of the scaled amount; volumes default to the density of water. Inside " +
        "$const.units[...], `unit` is the table entry's field and $parent the ingredient.",
    },
    {
      path: "$.ingredients[*].kcal",
      expr: "$round($parent.grams * $parent.kcalPer100g / 100)",
      description: "Absent when the ingredient has no energy value.",
    },
    { path: "$.totalGrams", expr: "$sum([ingredients.grams])" },
    { path: "$.totalKcal", expr: "$sum([ingredients.kcal])" },
    { path: "$.kcalPerServing", expr: "$round(totalKcal / targetServings)" },
    {
      path: "$.shoppingList",
      expr: "[ingredients[quantity > 0].($string(scaledQuantity) & ' ' & unit & ' ' & name)]",
      description: "One line per ingredient; [...] keeps a single line a list.",
    },
  ],
  metaDerivations: [
    {
      path: "$.ingredients[*].densityGPerMl",
      property: "relevant",
      expr: "$const.units[unit = $parent.unit].kind = 'volume'",
    },
    { path: "$.ingredients[*].gramsPerPiece", property: "relevant", expr: "$parent.unit = 'piece'" },
    { path: "$.ingredients[*].gramsPerPiece", property: "required", expr: "$parent.unit = 'piece'" },
    {
      path: "$.targetServings",
      property: "maximum",
      expr: "baseServings * $const.maxScale",
      description: "Scaling beyond eight times the recipe is refused on the next write.",
    },
  ],
  constraints: [
    {
      id: "unique-ingredient-names",
      expr: "$count(ingredients[$exists(name)]) = $count($distinct(ingredients.name))",
      message: "Each ingredient may appear only once",
      policy: "rollback",
    },
    {
      id: "pieces-have-weight",
      path: "$.ingredients[*]",
      expr: "$not($parent.unit = 'piece') or $exists($parent.gramsPerPiece)",
      message: "Ingredients counted in pieces need a weight per piece",
      policy: "rollback",
    },
    {
      id: "whole-pieces",
      path: "$.ingredients[*]",
      expr: "$not($parent.unit = 'piece') or $parent.quantity * scaleFactor = $parent.scaledQuantity",
      message: "Scaling asks for part of a piece; it was rounded up",
      policy: "flag",
    },
  ],
  effects: [
    {
      id: "rescaled",
      executor: "caller",
      trigger: "targetServings != baseServings and $count(ingredients) > 0",
      emit: "recipe.rescaled",
      payload: { title: "title", servings: "targetServings", shoppingList: "shoppingList" },
      description: "Hands the caller the shopping list for the new serving count.",
    },
  ],
  tests: [
    {
      description: "pancakes for six instead of four",
      given: {
        "$.title": "Pancakes",
        "$.targetServings": 6,
        "$.ingredients[0]": { name: "flour", quantity: 500, unit: "g", kcalPer100g: 364 },
        "$.ingredients[1]": { name: "milk", quantity: 300, unit: "ml", densityGPerMl: 1.03, kcalPer100g: 64 },
        "$.ingredients[2]": { name: "eggs", quantity: 3, unit: "piece", gramsPerPiece: 50, kcalPer100g: 143 },
        "$.ingredients[3]": {
          name: "sugar",
          quantity: 2,
          unit: "tbsp",
          densityGPerMl: 0.85,
          kcalPer100g: 387,
        },
      },
      expect: {
        "$.scaleFactor": 1.5,
        "$.ingredients[0].scaledQuantity": 750,
        "$.ingredients[1].grams": 464,
        "$.ingredients[2].scaledQuantity": 5,
        "$.ingredients[2].grams": 250,
        "$.ingredients[3].scaledQuantity": 3,
        "$.ingredients[3].grams": 38,
        "$.totalGrams": 1502,
        "$.totalKcal": 3532,
        "$.kcalPerServing": 589,
        "$.shoppingList": ["750 g flour", "450 ml milk", "5 piece eggs", "3 tbsp sugar"],
      },
    },
    {
      description: "halving rounds spoons to the quarter and keeps one decimal otherwise",
      given: {
        "$.targetServings": 2,
        "$.ingredients[0]": { name: "vanilla", quantity: 1.5, unit: "tsp" },
        "$.ingredients[1]": { name: "butter", quantity: 0.125, unit: "kg" },
      },
      expect: {
        "$.ingredients[0].scaledQuantity": 0.75,
        "$.ingredients[1].scaledQuantity": 0.1,
        "$.ingredients[1].grams": 100,
        "$.ingredients[0].kcal": null,
        "$.totalKcal": 0,
      },
    },
    {
      description: "the unit decides which extra fields apply",
      given: { "$.ingredients[0]": { name: "oil", quantity: 2, unit: "tbsp" } },
      expect: {
        "$.ingredients[0].densityGPerMl": { $meta: { relevant: true } },
        "$.ingredients[0].gramsPerPiece": { $meta: { relevant: false, required: false } },
        "$.ingredients[0].grams": 30,
        "$.targetServings": { $meta: { maximum: 32 } },
      },
    },
    {
      description: "a single ingredient still yields a list",
      given: { "$.ingredients[0]": { name: "rice", quantity: 300 } },
      expect: { "$.shoppingList": ["300 g rice"], "$.ingredients[0].unit": "g" },
    },
  ],
  viewDefinition: {
    defaultView: "scale",
    views: [
      {
        id: "scale",
        label: "Recipe scaler",
        components: [
          { id: "title", type: "textField", label: "Recipe", bind: "$.title" },
          {
            id: "servings",
            type: "group",
            layout: "horizontal",
            components: [
              {
                id: "baseServings",
                type: "numericStepper",
                label: "Recipe serves",
                bind: "$.baseServings",
                min: 1,
                max: 50,
                step: 1,
              },
              {
                id: "targetServings",
                type: "sliderField",
                label: "Cook for",
                bind: "$.targetServings",
                min: 1,
                max: 24,
                step: 1,
              },
              {
                id: "factor",
                type: "label",
                text: "'x ' & $formatNumber(scaleFactor, '0.##')",
              },
            ],
          },
          {
            id: "ingredients",
            type: "sectionList",
            label: "Ingredients",
            bind: "$.ingredients",
            canAdd: true,
            canRemove: true,
            addLabel: "Add ingredient",
            components: [
              { id: "name", type: "textField", label: "Ingredient", bind: "$.ingredients[*].name" },
              { id: "quantity", type: "numericField", label: "Amount", bind: "$.ingredients[*].quantity" },
              {
                id: "unit",
                type: "selectField",
                label: "Unit",
                bind: "$.ingredients[*].unit",
                options: [
                  { value: "g", label: "g" },
                  { value: "kg", label: "kg" },
                  { value: "ml", label: "ml" },
                  { value: "l", label: "l" },
                  { value: "tsp", label: "tsp" },
                  { value: "tbsp", label: "tbsp" },
                  { value: "cup", label: "cup" },
                  { value: "piece", label: "piece" },
                ],
              },
              {
                id: "density",
                type: "numericField",
                label: "Density (g/ml)",
                bind: "$.ingredients[*].densityGPerMl",
                placeholder: "1.0",
              },
              {
                id: "pieceWeight",
                type: "numericField",
                label: "Grams per piece",
                bind: "$.ingredients[*].gramsPerPiece",
              },
              {
                id: "scaled",
                type: "label",
                label: "Scaled",
                text: "$string($parent.scaledQuantity) & ' ' & $parent.unit",
              },
            ],
          },
          {
            id: "nutrition",
            type: "card",
            label: "Nutrition",
            layout: "horizontal",
            components: [
              { id: "perServing", type: "statTile", label: "kcal per serving", bind: "$.kcalPerServing" },
              {
                id: "weight",
                type: "statTile",
                label: "Total weight (g)",
                bind: "$.totalGrams",
                format: "integer",
              },
            ],
          },
          {
            id: "shopping",
            type: "collapsible",
            label: "Shopping list",
            collapsed: true,
            components: [
              {
                id: "list",
                type: "staticText",
                format: "markdown",
                text: "$join(shoppingList.('- ' & $), '\n')",
              },
            ],
          },
        ],
      },
    ],
  },
};
