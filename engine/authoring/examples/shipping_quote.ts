/**
 * Example spec: a parcel shipping quote with volumetric weight and a fetched fuel surcharge.
 *
 * @module
 */
import type { ModelSpec } from "../../model/types.ts";

/** Shipping quote: chargeable weight per parcel, zone and service rates, surcharges, delivery date. */
export const SHIPPING_QUOTE: ModelSpec = {
  _name: "Shipping quote",
  _description: "Quotes a shipment of parcels. Each parcel is charged by the greater of its actual and " +
    "volumetric weight, rounded up to the half kilogram; the zone (domestic, EU, world) and the service pick " +
    "a rate from a table. A server effect fetches the day's fuel surcharge and folds it back; residential " +
    "delivery and insurance add fees; the delivery date follows from the transit days. Parcels over the " +
    "carrier's size limit are refused, and the caller gets the quote once it is complete.",
  id: "shipping-quote",
  version: "1.0.0",
  schema: {
    type: "object",
    properties: {
      origin: {
        type: "object",
        properties: { country: { type: "string", pattern: "^[A-Z]{2}$" }, postcode: { type: "string" } },
      },
      destination: {
        type: "object",
        properties: {
          country: { type: "string", pattern: "^[A-Z]{2}$" },
          postcode: { type: "string" },
          residential: { type: "boolean" },
        },
      },
      service: { type: "string", enum: ["economy", "express", "overnight"] },
      shipDate: { type: "string", pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}$" },
      insurance: { type: "boolean" },
      fuelSurchargePercent: { type: "number", minimum: 0, maximum: 50 },
      parcels: {
        type: "array",
        items: {
          type: "object",
          properties: {
            description: { type: "string" },
            lengthCm: { type: "number", exclusiveMinimum: 0 },
            widthCm: { type: "number", exclusiveMinimum: 0 },
            heightCm: { type: "number", exclusiveMinimum: 0 },
            weightKg: { type: "number", exclusiveMinimum: 0 },
            declaredValue: { type: "number", minimum: 0 },
            volumetricKg: { type: "number", readOnly: true },
            chargeableKg: { type: "number", readOnly: true },
          },
        },
      },
      zone: { type: "string", readOnly: true },
      chargeableKg: { type: "number", readOnly: true },
      baseCharge: { type: "number", readOnly: true },
      fuelCharge: { type: "number", readOnly: true },
      residentialFee: { type: "number", readOnly: true },
      insuranceFee: { type: "number", readOnly: true },
      total: { type: "number", readOnly: true },
      transitDays: { type: "integer", readOnly: true },
      estimatedDelivery: { type: "string", readOnly: true },
    },
  },
  constants: {
    volumetricDivisor: 5000,
    euCountries: ["AT", "BE", "DE", "DK", "ES", "FI", "FR", "IE", "IT", "NL", "PL", "PT", "SE"],
    rates: [
      { zone: "domestic", service: "economy", first: 6.5, perKg: 0.9, days: 3 },
      { zone: "domestic", service: "express", first: 11, perKg: 1.4, days: 2 },
      { zone: "domestic", service: "overnight", first: 24, perKg: 2.2, days: 1 },
      { zone: "eu", service: "economy", first: 14, perKg: 2.1, days: 6 },
      { zone: "eu", service: "express", first: 29, perKg: 3.6, days: 2 },
      { zone: "world", service: "economy", first: 25, perKg: 4.8, days: 10 },
      { zone: "world", service: "express", first: 49, perKg: 7.5, days: 4 },
    ],
    residentialFee: 3.5,
    insuranceMinimum: 2,
    insurancePercent: 1,
    maxLengthPlusGirthCm: 300,
  },
  defaultValues: [
    {
      path: "$",
      expr: "{'service': 'economy', 'insurance': false, 'fuelSurchargePercent': 0}",
      description: "Economy without insurance; no fuel surcharge until the day's rate arrives.",
    },
  ],
  derivations: [
    {
      path: "$.parcels[*].volumetricKg",
      expr: "$round($parent.lengthCm * $parent.widthCm * $parent.heightCm / $const.volumetricDivisor, 2)",
    },
    {
      path: "$.parcels[*].chargeableKg",
      expr: "$ceil($max([$parent.weightKg, $parent.volumetricKg]) * 2) / 2",
      description: "The greater of actual and volumetric weight, rounded up to the half kilogram.",
    },
    { path: "$.chargeableKg", expr: "$sum([parcels.chargeableKg])" },
    {
      path: "$.zone",
      expr: "origin.country and destination.country ? (origin.country = destination.country ? 'domestic' : " +
        "destination.country in $const.euCountries and origin.country in $const.euCountries ? 'eu' : 'world')",
    },
    {
      path: "$.baseCharge",
      expr: "($rate := $const.rates[zone = $$.zone and service = $$.service]; " +
        "$rate ? $round($rate.first + $rate.perKg * $max([0, chargeableKg - 1]), 2))",
      description: "First kilogram plus every further kilogram at the zone and service rate; inside the " +
        "filter `zone` and `service` are the rate's fields, $$ the quote's.",
    },
    { path: "$.fuelCharge", expr: "$round(baseCharge * fuelSurchargePercent / 100, 2)" },
    { path: "$.residentialFee", expr: "destination.residential = true ? $const.residentialFee : 0" },
    {
      path: "$.insuranceFee",
      expr: "insurance = true ? $max([$const.insuranceMinimum, " +
        "$round($sum([parcels.declaredValue]) * $const.insurancePercent / 100, 2)]) : 0",
    },
    { path: "$.total", expr: "$round(baseCharge + fuelCharge + residentialFee + insuranceFee, 2)" },
    { path: "$.transitDays", expr: "$const.rates[zone = $$.zone and service = $$.service].days" },
    {
      path: "$.estimatedDelivery",
      expr: "shipDate and transitDays ? " +
        "$fromMillis($toMillis(shipDate) + transitDays * 86400000, '[Y0001]-[M01]-[D01]')",
    },
  ],
  metaDerivations: [
    {
      path: "$.service",
      property: "enum",
      expr: "zone ? (zone = 'domestic' ? ['economy', 'express', 'overnight'] : ['economy', 'express'])",
      description: "Overnight delivery exists only within a country (no limit until the route is known).",
    },
    {
      path: "$.parcels[*].weightKg",
      property: "maximum",
      expr: "service = 'overnight' ? 30 : 70",
    },
    { path: "$.parcels[*].declaredValue", property: "relevant", expr: "insurance = true" },
    { path: "$.parcels[*].declaredValue", property: "required", expr: "insurance = true" },
  ],
  constraints: [
    {
      id: "parcel-size",
      path: "$.parcels[*]",
      expr: "($d := [$parent.lengthCm, $parent.widthCm, $parent.heightCm]; " +
        "$count($d) < 3 or $max($d) + 2 * ($sum($d) - $max($d)) <= $const.maxLengthPlusGirthCm)",
      message: "A parcel's length plus girth may not exceed 300 cm",
      policy: "rollback",
    },
    {
      id: "route-served",
      expr: "$not($exists(zone)) or $exists(baseCharge)",
      message: "This service is not offered on this route",
      policy: "rollback",
    },
    {
      id: "freight-weight",
      expr: "chargeableKg <= 100",
      message: "Shipments over 100 kg go by freight; this quote is indicative",
      policy: "flag",
    },
  ],
  effects: [
    {
      id: "fetch-fuel-surcharge",
      executor: "server",
      trigger: "$exists(shipDate) and $exists(service)",
      dedupeKey: "service & '@' & shipDate",
      request: {
        method: "GET",
        url: "https://rates.example.com/fuel?service={service}&date={shipDate}",
      },
      response: { set: { "$.fuelSurchargePercent": "$response.percent" } },
      statusPath: "$.ioFuel",
      description: "Fetches the carrier's fuel surcharge for the service and day, and folds it back.",
    },
    {
      id: "quote-ready",
      executor: "caller",
      trigger: "$exists(total) and $exists(destination.postcode) and $count(parcels) > 0",
      emit: "shipping.quote",
      payload: { total: "total", service: "service", delivery: "estimatedDelivery" },
      description: "Hands the caller a complete quote.",
    },
  ],
  tests: [
    {
      description: "a domestic economy parcel is charged by its volumetric weight",
      given: {
        "$.origin.country": "DE",
        "$.destination.country": "DE",
        "$.shipDate": "2024-05-06",
        "$.parcels[0]": { lengthCm: 40, widthCm: 30, heightCm: 20, weightKg: 3.2 },
      },
      expect: {
        "$.parcels[0].volumetricKg": 4.8,
        "$.parcels[0].chargeableKg": 5,
        "$.zone": "domestic",
        "$.baseCharge": 10.1,
        "$.total": 10.1,
        "$.transitDays": 3,
        "$.estimatedDelivery": "2024-05-09",
      },
    },
    {
      description: "EU express with surcharge, residential delivery and insurance",
      given: {
        "$.origin.country": "DE",
        "$.destination": { country: "FR", postcode: "75011", residential: true },
        "$.service": "express",
        "$.insurance": true,
        "$.fuelSurchargePercent": 8.5,
        "$.parcels[0]": { lengthCm: 50, widthCm: 40, heightCm: 30, weightKg: 8, declaredValue: 200 },
        "$.parcels[1]": { lengthCm: 20, widthCm: 20, heightCm: 10, weightKg: 1.3, declaredValue: 50 },
      },
      expect: {
        "$.parcels[0].chargeableKg": 12,
        "$.parcels[1].chargeableKg": 1.5,
        "$.chargeableKg": 13.5,
        "$.zone": "eu",
        "$.baseCharge": 74,
        "$.fuelCharge": 6.29,
        "$.insuranceFee": 2.5,
        "$.total": 86.29,
        "$.parcels[1].declaredValue": { $meta: { relevant: true, required: true } },
      },
    },
    {
      description: "outside the EU only economy and express are offered",
      given: {
        "$.origin.country": "NL",
        "$.destination.country": "US",
        "$.parcels[0]": { lengthCm: 30, widthCm: 20, heightCm: 10, weightKg: 1.8 },
      },
      expect: {
        "$.zone": "world",
        "$.parcels[0].chargeableKg": 2,
        "$.baseCharge": 29.8,
        "$.transitDays": 10,
        "$.service": { $meta: { enum: ["economy", "express"] } },
      },
    },
    {
      description: "overnight parcels may weigh up to 30 kg",
      given: {
        "$.origin.country": "FR",
        "$.destination.country": "FR",
        "$.service": "overnight",
        "$.parcels[0]": { lengthCm: 60, widthCm: 40, heightCm: 40, weightKg: 21 },
      },
      expect: {
        "$.parcels[0].chargeableKg": 21,
        "$.baseCharge": 68,
        "$.transitDays": 1,
        "$.parcels[0].weightKg": { $meta: { maximum: 30 } },
      },
    },
  ],
  viewDefinition: {
    defaultView: "quote",
    views: [
      {
        id: "quote",
        label: "Shipping quote",
        layout: "grid",
        columns: 2,
        components: [
          {
            id: "route",
            type: "fieldSet",
            legend: "Route",
            components: [
              { id: "from", type: "countrySelector", label: "From", bind: "$.origin.country" },
              { id: "to", type: "countrySelector", label: "To", bind: "$.destination.country" },
              {
                id: "postcode",
                type: "textField",
                label: "Destination postcode",
                bind: "$.destination.postcode",
              },
              {
                id: "residential",
                type: "checkboxField",
                label: "Residential address",
                bind: "$.destination.residential",
              },
              { id: "zoneBadge", type: "badge", bind: "$.zone", variant: "secondary" },
            ],
          },
          {
            id: "serviceBox",
            type: "fieldSet",
            legend: "Service",
            components: [
              {
                id: "service",
                type: "radioField",
                bind: "$.service",
                options: [
                  { value: "economy", label: "Economy" },
                  { value: "express", label: "Express" },
                  { value: "overnight", label: "Overnight (domestic)" },
                ],
              },
              { id: "shipDate", type: "dateField", label: "Ship on", bind: "$.shipDate" },
              { id: "insurance", type: "toggleField", label: "Insure the contents", bind: "$.insurance" },
              {
                id: "fuelStatus",
                type: "effectStatus",
                label: "Fuel surcharge",
                effectId: "fetch-fuel-surcharge",
                showRetry: true,
                retryLabel: "Fetch again",
              },
            ],
          },
          {
            id: "parcels",
            type: "sectionList",
            label: "Parcels",
            bind: "$.parcels",
            canAdd: true,
            canRemove: true,
            addLabel: "Add parcel",
            layout: "grid",
            columns: 4,
            components: [
              { id: "length", type: "numericField", label: "Length (cm)", bind: "$.parcels[*].lengthCm" },
              { id: "width", type: "numericField", label: "Width (cm)", bind: "$.parcels[*].widthCm" },
              { id: "height", type: "numericField", label: "Height (cm)", bind: "$.parcels[*].heightCm" },
              { id: "weight", type: "numericField", label: "Weight (kg)", bind: "$.parcels[*].weightKg" },
              {
                id: "value",
                type: "currencyField",
                label: "Declared value",
                bind: "$.parcels[*].declaredValue",
                currency: "EUR",
              },
              {
                id: "charged",
                type: "label",
                text: "'Charged as ' & $string($parent.chargeableKg) & ' kg'",
              },
            ],
          },
          {
            id: "price",
            type: "card",
            label: "Price",
            components: [
              {
                id: "totalTile",
                type: "statTile",
                label: "Total",
                bind: "$.total",
                format: "currency",
                currency: "EUR",
                caption: "$exists(estimatedDelivery) ? 'Arrives ' & estimatedDelivery : 'Set a ship date'",
              },
              {
                id: "breakdown",
                type: "summaryList",
                items: [
                  { label: "Chargeable weight (kg)", bind: "$.chargeableKg" },
                  { label: "Transport", bind: "$.baseCharge", format: "currency", currency: "EUR" },
                  { label: "Fuel surcharge", bind: "$.fuelCharge", format: "currency", currency: "EUR" },
                  {
                    label: "Residential delivery",
                    bind: "$.residentialFee",
                    format: "currency",
                    currency: "EUR",
                  },
                  { label: "Insurance", bind: "$.insuranceFee", format: "currency", currency: "EUR" },
                ],
              },
              {
                id: "freight",
                type: "alert",
                variant: "warning",
                visible: "chargeableKg > 100",
                text: "Over 100 kg: ask for a freight quote.",
              },
            ],
          },
        ],
      },
    ],
  },
};
