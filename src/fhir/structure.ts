/**
 * Base FHIR R4 (4.0.1) structure of the resources abha-link emits and reads:
 * each element's type and cardinality, for fromFhir (which elements it knows
 * by name); the R4 regular expressions and words of the primitive types, for
 * the validator (src/fhir/nrces/primitive.ts) and the builder. The validator
 * takes everything else from fhirpath's R4 model and the generated data.
 */

/** Primitive types, checked against their R4 regular expressions. */
export type Primitive =
  | 'string'
  | 'code'
  | 'uri'
  | 'url'
  | 'canonical'
  | 'id'
  | 'markdown'
  | 'xhtml'
  | 'dateTime'
  | 'date'
  | 'instant'
  | 'time'
  | 'boolean'
  | 'integer'
  | 'positiveInt'
  | 'unsignedInt'
  | 'decimal'
  | 'base64Binary';

/** One element: its type (a primitive, a datatype name, an inline structure, or `Resource`) and cardinality. */
export interface ElementDef {
  readonly type: Primitive | string | StructureDef;
  readonly min: number;
  readonly max: number;
}
export type StructureDef = Readonly<Record<string, ElementDef>>;

const M = Number.POSITIVE_INFINITY;
const e = (type: ElementDef['type'], min = 0, max = 1): ElementDef => ({ type, min, max });
const many = (type: ElementDef['type'], min = 0): ElementDef => e(type, min, M);

export const PRIMITIVES: ReadonlySet<string> = new Set([
  'string',
  'code',
  'uri',
  'url',
  'canonical',
  'id',
  'markdown',
  'xhtml',
  'dateTime',
  'date',
  'instant',
  'time',
  'boolean',
  'integer',
  'positiveInt',
  'unsignedInt',
  'decimal',
  'base64Binary',
]);

const Period: StructureDef = { start: e('dateTime'), end: e('dateTime') };
const Coding: StructureDef = { system: e('uri'), version: e('string'), code: e('code'), display: e('string'), userSelected: e('boolean') };
const Quantity: StructureDef = { value: e('decimal'), comparator: e('code'), unit: e('string'), system: e('uri'), code: e('code') };

/** Datatypes by name. `Reference` and `Extension` are also checked specially. */
export const DATATYPES: Readonly<Record<string, StructureDef>> = {
  Coding,
  CodeableConcept: { coding: many('Coding'), text: e('string') },
  Identifier: { use: e('code'), type: e('CodeableConcept'), system: e('uri'), value: e('string'), period: e('Period'), assigner: e('Reference') },
  Reference: { reference: e('string'), type: e('uri'), identifier: e('Identifier'), display: e('string') },
  Period,
  HumanName: { use: e('code'), text: e('string'), family: e('string'), given: many('string'), prefix: many('string'), suffix: many('string'), period: e('Period') },
  ContactPoint: { system: e('code'), value: e('string'), use: e('code'), rank: e('positiveInt'), period: e('Period') },
  Address: {
    use: e('code'),
    type: e('code'),
    text: e('string'),
    line: many('string'),
    city: e('string'),
    district: e('string'),
    state: e('string'),
    postalCode: e('string'),
    country: e('string'),
    period: e('Period'),
  },
  Quantity,
  Duration: Quantity,
  Age: Quantity,
  Range: { low: e('Quantity'), high: e('Quantity') },
  Ratio: { numerator: e('Quantity'), denominator: e('Quantity') },
  Attachment: {
    contentType: e('code'),
    language: e('code'),
    data: e('base64Binary'),
    url: e('url'),
    size: e('unsignedInt'),
    hash: e('base64Binary'),
    title: e('string'),
    creation: e('dateTime'),
  },
  Annotation: { authorReference: e('Reference'), authorString: e('string'), time: e('dateTime'), text: e('markdown', 1) },
  Meta: { versionId: e('id'), lastUpdated: e('instant'), source: e('uri'), profile: many('canonical'), security: many('Coding'), tag: many('Coding') },
  Narrative: { status: e('code', 1), div: e('xhtml', 1) },
  Timing: {
    event: many('dateTime'),
    repeat: e({
      boundsDuration: e('Duration'),
      boundsRange: e('Range'),
      boundsPeriod: e('Period'),
      count: e('positiveInt'),
      countMax: e('positiveInt'),
      duration: e('decimal'),
      durationMax: e('decimal'),
      durationUnit: e('code'),
      frequency: e('positiveInt'),
      frequencyMax: e('positiveInt'),
      period: e('decimal'),
      periodMax: e('decimal'),
      periodUnit: e('code'),
      dayOfWeek: many('code'),
      timeOfDay: many('time'),
      when: many('code'),
      offset: e('unsignedInt'),
    }),
    code: e('CodeableConcept'),
  },
  Dosage: {
    sequence: e('integer'),
    text: e('string'),
    additionalInstruction: many('CodeableConcept'),
    patientInstruction: e('string'),
    timing: e('Timing'),
    asNeededBoolean: e('boolean'),
    asNeededCodeableConcept: e('CodeableConcept'),
    site: e('CodeableConcept'),
    route: e('CodeableConcept'),
    method: e('CodeableConcept'),
    doseAndRate: many({
      type: e('CodeableConcept'),
      doseRange: e('Range'),
      doseQuantity: e('Quantity'),
      rateRatio: e('Ratio'),
      rateRange: e('Range'),
      rateQuantity: e('Quantity'),
    }),
    maxDosePerPeriod: e('Ratio'),
    maxDosePerAdministration: e('Quantity'),
    maxDosePerLifetime: e('Quantity'),
  },
  Signature: {
    type: many('Coding', 1),
    when: e('instant', 1),
    who: e('Reference', 1),
    onBehalfOf: e('Reference'),
    targetFormat: e('code'),
    sigFormat: e('code'),
    data: e('base64Binary'),
  },
};

const RESOURCE_BASE: StructureDef = { id: e('id'), meta: e('Meta'), implicitRules: e('uri'), language: e('code') };
const DOMAIN_RESOURCE: StructureDef = { ...RESOURCE_BASE, text: e('Narrative'), contained: many('Resource'), extension: many('Extension'), modifierExtension: many('Extension') };

const section: Record<string, ElementDef> = {
  title: e('string'),
  code: e('CodeableConcept'),
  author: many('Reference'),
  focus: e('Reference'),
  text: e('Narrative'),
  mode: e('code'),
  orderedBy: e('CodeableConcept'),
  entry: many('Reference'),
  emptyReason: e('CodeableConcept'),
};
section.section = many(section);

/** Resource structures by resourceType. Other resource types get the generic checks only. */
export const RESOURCES: Readonly<Record<string, StructureDef>> = {
  Bundle: {
    ...RESOURCE_BASE,
    identifier: e('Identifier'),
    type: e('code', 1),
    timestamp: e('instant'),
    total: e('unsignedInt'),
    link: many({ relation: e('string', 1), url: e('uri', 1) }),
    entry: many({
      link: many({ relation: e('string', 1), url: e('uri', 1) }),
      fullUrl: e('uri'),
      resource: e('Resource'),
      search: e({ mode: e('code'), score: e('decimal') }),
      request: e({ method: e('code', 1), url: e('uri', 1), ifNoneMatch: e('string'), ifModifiedSince: e('instant'), ifMatch: e('string'), ifNoneExist: e('string') }),
      response: e({ status: e('string', 1), location: e('uri'), etag: e('string'), lastModified: e('instant'), outcome: e('Resource') }),
    }),
    signature: e('Signature'),
  },
  Composition: {
    ...DOMAIN_RESOURCE,
    identifier: e('Identifier'),
    status: e('code', 1),
    type: e('CodeableConcept', 1),
    category: many('CodeableConcept'),
    subject: e('Reference'),
    encounter: e('Reference'),
    date: e('dateTime', 1),
    author: many('Reference', 1),
    title: e('string', 1),
    confidentiality: e('code'),
    attester: many({ mode: e('code', 1), time: e('dateTime'), party: e('Reference') }),
    custodian: e('Reference'),
    relatesTo: many({ code: e('code', 1), targetIdentifier: e('Identifier'), targetReference: e('Reference') }),
    event: many({ code: many('CodeableConcept'), period: e('Period'), detail: many('Reference') }),
    section: many(section),
  },
  Patient: {
    ...DOMAIN_RESOURCE,
    identifier: many('Identifier'),
    active: e('boolean'),
    name: many('HumanName'),
    telecom: many('ContactPoint'),
    gender: e('code'),
    birthDate: e('date'),
    deceasedBoolean: e('boolean'),
    deceasedDateTime: e('dateTime'),
    address: many('Address'),
    maritalStatus: e('CodeableConcept'),
    multipleBirthBoolean: e('boolean'),
    multipleBirthInteger: e('integer'),
    photo: many('Attachment'),
    contact: many({
      relationship: many('CodeableConcept'),
      name: e('HumanName'),
      telecom: many('ContactPoint'),
      address: e('Address'),
      gender: e('code'),
      organization: e('Reference'),
      period: e('Period'),
    }),
    communication: many({ language: e('CodeableConcept', 1), preferred: e('boolean') }),
    generalPractitioner: many('Reference'),
    managingOrganization: e('Reference'),
    link: many({ other: e('Reference', 1), type: e('code', 1) }),
  },
  Practitioner: {
    ...DOMAIN_RESOURCE,
    identifier: many('Identifier'),
    active: e('boolean'),
    name: many('HumanName'),
    telecom: many('ContactPoint'),
    address: many('Address'),
    gender: e('code'),
    birthDate: e('date'),
    photo: many('Attachment'),
    qualification: many({ identifier: many('Identifier'), code: e('CodeableConcept', 1), period: e('Period'), issuer: e('Reference') }),
    communication: many('CodeableConcept'),
  },
  Organization: {
    ...DOMAIN_RESOURCE,
    identifier: many('Identifier'),
    active: e('boolean'),
    type: many('CodeableConcept'),
    name: e('string'),
    alias: many('string'),
    telecom: many('ContactPoint'),
    address: many('Address'),
    partOf: e('Reference'),
    contact: many({ purpose: e('CodeableConcept'), name: e('HumanName'), telecom: many('ContactPoint'), address: e('Address') }),
    endpoint: many('Reference'),
  },
  Encounter: {
    ...DOMAIN_RESOURCE,
    identifier: many('Identifier'),
    status: e('code', 1),
    statusHistory: many({ status: e('code', 1), period: e('Period', 1) }),
    class: e('Coding', 1),
    classHistory: many({ class: e('Coding', 1), period: e('Period', 1) }),
    type: many('CodeableConcept'),
    serviceType: e('CodeableConcept'),
    priority: e('CodeableConcept'),
    subject: e('Reference'),
    episodeOfCare: many('Reference'),
    basedOn: many('Reference'),
    participant: many({ type: many('CodeableConcept'), period: e('Period'), individual: e('Reference') }),
    appointment: many('Reference'),
    period: e('Period'),
    length: e('Duration'),
    reasonCode: many('CodeableConcept'),
    reasonReference: many('Reference'),
    diagnosis: many({ condition: e('Reference', 1), use: e('CodeableConcept'), rank: e('positiveInt') }),
    account: many('Reference'),
    hospitalization: e({
      preAdmissionIdentifier: e('Identifier'),
      origin: e('Reference'),
      admitSource: e('CodeableConcept'),
      reAdmission: e('CodeableConcept'),
      dietPreference: many('CodeableConcept'),
      specialCourtesy: many('CodeableConcept'),
      specialArrangement: many('CodeableConcept'),
      destination: e('Reference'),
      dischargeDisposition: e('CodeableConcept'),
    }),
    location: many({ location: e('Reference', 1), status: e('code'), physicalType: e('CodeableConcept'), period: e('Period') }),
    serviceProvider: e('Reference'),
    partOf: e('Reference'),
  },
  Condition: {
    ...DOMAIN_RESOURCE,
    identifier: many('Identifier'),
    clinicalStatus: e('CodeableConcept'),
    verificationStatus: e('CodeableConcept'),
    category: many('CodeableConcept'),
    severity: e('CodeableConcept'),
    code: e('CodeableConcept'),
    bodySite: many('CodeableConcept'),
    subject: e('Reference', 1),
    encounter: e('Reference'),
    onsetDateTime: e('dateTime'),
    onsetAge: e('Age'),
    onsetPeriod: e('Period'),
    onsetRange: e('Range'),
    onsetString: e('string'),
    abatementDateTime: e('dateTime'),
    abatementAge: e('Age'),
    abatementPeriod: e('Period'),
    abatementRange: e('Range'),
    abatementString: e('string'),
    recordedDate: e('dateTime'),
    recorder: e('Reference'),
    asserter: e('Reference'),
    stage: many({ summary: e('CodeableConcept'), assessment: many('Reference'), type: e('CodeableConcept') }),
    evidence: many({ code: many('CodeableConcept'), detail: many('Reference') }),
    note: many('Annotation'),
  },
  MedicationRequest: {
    ...DOMAIN_RESOURCE,
    identifier: many('Identifier'),
    status: e('code', 1),
    statusReason: e('CodeableConcept'),
    intent: e('code', 1),
    category: many('CodeableConcept'),
    priority: e('code'),
    doNotPerform: e('boolean'),
    reportedBoolean: e('boolean'),
    reportedReference: e('Reference'),
    medicationCodeableConcept: e('CodeableConcept'),
    medicationReference: e('Reference'),
    subject: e('Reference', 1),
    encounter: e('Reference'),
    supportingInformation: many('Reference'),
    authoredOn: e('dateTime'),
    requester: e('Reference'),
    performer: e('Reference'),
    performerType: e('CodeableConcept'),
    recorder: e('Reference'),
    reasonCode: many('CodeableConcept'),
    reasonReference: many('Reference'),
    instantiatesCanonical: many('canonical'),
    instantiatesUri: many('uri'),
    basedOn: many('Reference'),
    groupIdentifier: e('Identifier'),
    courseOfTherapyType: e('CodeableConcept'),
    insurance: many('Reference'),
    note: many('Annotation'),
    dosageInstruction: many('Dosage'),
    dispenseRequest: e({
      initialFill: e({ quantity: e('Quantity'), duration: e('Duration') }),
      dispenseInterval: e('Duration'),
      validityPeriod: e('Period'),
      numberOfRepeatsAllowed: e('unsignedInt'),
      quantity: e('Quantity'),
      expectedSupplyDuration: e('Duration'),
      performer: e('Reference'),
    }),
    substitution: e({ allowedBoolean: e('boolean'), allowedCodeableConcept: e('CodeableConcept'), reason: e('CodeableConcept') }),
    priorPrescription: e('Reference'),
    detectedIssue: many('Reference'),
    eventHistory: many('Reference'),
  },
  ServiceRequest: {
    ...DOMAIN_RESOURCE,
    identifier: many('Identifier'),
    instantiatesCanonical: many('canonical'),
    instantiatesUri: many('uri'),
    basedOn: many('Reference'),
    replaces: many('Reference'),
    requisition: e('Identifier'),
    status: e('code', 1),
    intent: e('code', 1),
    category: many('CodeableConcept'),
    priority: e('code'),
    doNotPerform: e('boolean'),
    code: e('CodeableConcept'),
    orderDetail: many('CodeableConcept'),
    quantityQuantity: e('Quantity'),
    quantityRatio: e('Ratio'),
    quantityRange: e('Range'),
    subject: e('Reference', 1),
    encounter: e('Reference'),
    occurrenceDateTime: e('dateTime'),
    occurrencePeriod: e('Period'),
    occurrenceTiming: e('Timing'),
    asNeededBoolean: e('boolean'),
    asNeededCodeableConcept: e('CodeableConcept'),
    authoredOn: e('dateTime'),
    requester: e('Reference'),
    performerType: e('CodeableConcept'),
    performer: many('Reference'),
    locationCode: many('CodeableConcept'),
    locationReference: many('Reference'),
    reasonCode: many('CodeableConcept'),
    reasonReference: many('Reference'),
    insurance: many('Reference'),
    supportingInfo: many('Reference'),
    specimen: many('Reference'),
    bodySite: many('CodeableConcept'),
    note: many('Annotation'),
    patientInstruction: e('string'),
    relevantHistory: many('Reference'),
  },
  DocumentReference: {
    ...DOMAIN_RESOURCE,
    masterIdentifier: e('Identifier'),
    identifier: many('Identifier'),
    status: e('code', 1),
    docStatus: e('code'),
    type: e('CodeableConcept'),
    category: many('CodeableConcept'),
    subject: e('Reference'),
    date: e('instant'),
    author: many('Reference'),
    authenticator: e('Reference'),
    custodian: e('Reference'),
    relatesTo: many({ code: e('code', 1), target: e('Reference', 1) }),
    description: e('string'),
    securityLabel: many('CodeableConcept'),
    content: many({ attachment: e('Attachment', 1), format: e('Coding') }, 1),
    context: e({
      encounter: many('Reference'),
      event: many('CodeableConcept'),
      period: e('Period'),
      facilityType: e('CodeableConcept'),
      practiceSetting: e('CodeableConcept'),
      sourcePatientInfo: e('Reference'),
      related: many('Reference'),
    }),
  },
  Binary: { ...RESOURCE_BASE, contentType: e('code', 1), securityContext: e('Reference'), data: e('base64Binary') },
};

const YEAR = '([0-9]([0-9]([0-9][1-9]|[1-9]0)|[1-9]00)|[1-9]000)';
const TIME = '([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\\.[0-9]{1,9})?';
const ZONE = '(Z|(\\+|-)((0[0-9]|1[0-3]):[0-5][0-9]|14:00))';

/** R4 regular expressions of the primitive types (hl7.org/fhir/R4/datatypes.html), anchored. */
export const PRIMITIVE_PATTERNS: Readonly<Partial<Record<Primitive, RegExp>>> = {
  id: /^[A-Za-z0-9\-.]{1,64}$/,
  code: /^[^\s]+( [^\s]+)*$/,
  dateTime: new RegExp(`^${YEAR}(-(0[1-9]|1[0-2])(-(0[1-9]|[1-2][0-9]|3[0-1])(T${TIME}${ZONE})?)?)?$`),
  date: new RegExp(`^${YEAR}(-(0[1-9]|1[0-2])(-(0[1-9]|[1-2][0-9]|3[0-1]))?)?$`),
  instant: new RegExp(`^${YEAR}-(0[1-9]|1[0-2])-(0[1-9]|[1-2][0-9]|3[0-1])T${TIME}${ZONE}$`),
  time: new RegExp(`^${TIME}$`),
  uri: /^\S+$/,
  url: /^\S+$/,
  canonical: /^\S+$/,
};

/** What a value of a primitive type must look like, in words. */
export const PRIMITIVE_WORDS: Readonly<Record<Primitive, string>> = {
  string: 'a non-empty string',
  code: 'a code (no leading, trailing or double spaces)',
  uri: 'a URI without spaces',
  url: 'a URL without spaces',
  canonical: 'a canonical URL without spaces',
  id: 'an id of 1 to 64 letters, digits, - and .',
  markdown: 'a non-empty string',
  xhtml: 'an XHTML <div>',
  dateTime: 'a FHIR dateTime: YYYY, YYYY-MM, YYYY-MM-DD, or YYYY-MM-DDThh:mm:ss with a time zone',
  date: 'a FHIR date: YYYY, YYYY-MM or YYYY-MM-DD',
  instant: 'a FHIR instant: YYYY-MM-DDThh:mm:ss(.sss) with a time zone',
  time: 'a time hh:mm:ss',
  boolean: 'true or false',
  integer: 'a whole number',
  positiveInt: 'a whole number greater than 0',
  unsignedInt: 'a whole number, 0 or more',
  decimal: 'a number',
  base64Binary: 'base64 text',
};

/** Every element name the structures above define: the names that may appear in messages. */
export const KNOWN_ELEMENT_NAMES: ReadonlySet<string> = (() => {
  const names = new Set<string>(['resourceType', 'extension', 'modifierExtension', 'url', 'id']);
  const walk = (d: StructureDef, depth: number): void => {
    for (const [k, v] of Object.entries(d)) {
      names.add(k);
      if (typeof v.type === 'object' && depth < 4) walk(v.type, depth + 1);
    }
  };
  for (const d of [...Object.values(DATATYPES), ...Object.values(RESOURCES)]) walk(d, 0);
  return names;
})();

/** A key's name for a message when FHIR defines it; a neutral word otherwise (an unknown key could be data). */
export function safeElementName(key: string | number): string {
  return typeof key === 'string' && KNOWN_ELEMENT_NAMES.has(key) ? key : 'this element';
}

/** The last readable element name in a path (`section[2]`), for messages; `fallback` when there is none. */
export function pathLabel(path: ReadonlyArray<string | number>, fallback: string): string {
  for (let i = path.length - 1; i >= 0; i--) {
    const t = path[i];
    if (typeof t === 'string') {
      const name = safeElementName(t);
      const n = path[i + 1];
      return typeof n === 'number' && name !== 'this element' ? `${name}[${n}]` : name;
    }
  }
  return fallback;
}

/** A resource type for a message when FHIR-shaped; a neutral word otherwise. */
export function safeResourceType(type: string): string {
  return /^[A-Z][A-Za-z]{1,40}$/.test(type) ? type : 'this resource';
}
