/**
 * Synthetic NDJSON of link requests for the benchmark.
 *
 * Every document is derived from one of the three example link requests in
 * examples/ with made-up patients, facilities, doctors, visits and clinical
 * content (seeded PRNG: the same size gives the same file). About 5% of the
 * documents are made invalid on purpose (a missing field, a wrong type, a bad
 * date, an unknown field, a string over its limit...); every line is JSON.
 * No real person's data: names are drawn from small lists of common names
 * and combined at random, ids are random digits.
 *
 * Usage as a script: node bench/gen-ndjson.mjs OUT.ndjson MEGABYTES
 */
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Bump when the output changes, so cached files are regenerated. */
export const GENERATOR_VERSION = 3;
export const INVALID_RATE = 0.05;
const SEED = 0x5eed_ab4a;

const EXAMPLES = ['opd-prescription', 'lab-order', 'multi-care-context'];

/** mulberry32: small, fast, deterministic. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIRST = [
  'Asha',
  'Rohit',
  'Kavya',
  'Arjun',
  'Priya',
  'Vikram',
  'Sneha',
  'Rahul',
  'Ananya',
  'Suresh',
  'Lakshmi',
  'Imran',
  'Fatima',
  'Gurpreet',
  'Deepa',
  'Manoj',
  'Neha',
  'Kiran',
  'Ravi',
  'Meena',
  'Joseph',
  'Mary',
  'Sanjay',
  'Pooja',
  'Abdul',
  'Harpreet',
  'Divya',
  'Venkat',
  'Farah',
  'Aditya',
];
const LAST = [
  'Verma',
  'Kumar',
  'Nair',
  'Sharma',
  'Iyer',
  'Reddy',
  'Singh',
  'Das',
  'Patel',
  'Khan',
  'Menon',
  'Gupta',
  'Rao',
  'Joshi',
  'Siddiqui',
  'Pillai',
  'Mukherjee',
  'Chatterjee',
  'Desai',
  'Kulkarni',
  'Thomas',
  'Fernandes',
  'Bose',
  'Yadav',
  'Mishra',
];
// A few Devanagari / Tamil names, so the UTF-8 path of the decoder is exercised.
const NATIVE = ['आशा वर्मा', 'रोहित कुमार', 'प्रिया शर्मा', 'காவ்யா நாயர்', 'அர்ஜுன் ரெட்டி'];
const HOSP_WORD = [
  'Sanjeevani',
  'Lakeview',
  'Green Valley',
  'Sunrise',
  'Apollo Road',
  'Shanti',
  'Lotus',
  'Arogya',
  'Dhanvantari',
  'City Care',
  'Riverside',
  'Sai Krupa',
  'Navjeevan',
  'Hill View',
  'Metro',
];
const HOSP_KIND = ['Family Clinic', 'Multispeciality Hospital', 'Hospital', 'Nursing Home', 'Medical Centre', 'Polyclinic', 'Diagnostic Centre', "Children's Clinic"];
const STATE_CODES = ['29', '33', '07', '27', '32', '36', '24', '09', '19', '06'];
const LIC_PREFIX = ['KMC', 'TNMC', 'DMC', 'MMC', 'TCMC', 'WBMC', 'GMC', 'UPMC'];
const DIAGNOSES = [
  ['Type 2 diabetes mellitus without complications', 'E11.9'],
  ['Essential (primary) hypertension', 'I10'],
  ['Acute upper respiratory infection', 'J06.9'],
  ['Iron deficiency anaemia', 'D50.9'],
  ['Fatigue, under evaluation', 'R53'],
  ['Hypothyroidism, unspecified', 'E03.9'],
  ['Acute gastroenteritis', 'A09'],
  ['Low back pain', 'M54.5'],
  ['Allergic rhinitis', 'J30.4'],
  ['Dengue fever, suspected', 'A97.9'],
  ['Vitamin D deficiency', 'E55.9'],
  ['Migraine without aura', 'G43.0'],
];
const STATUSES = ['confirmed', 'provisional', 'differential'];
const DRUGS = [
  ['Metformin 500 mg tablet', '1 tablet', '1-0-1 (twice a day: morning and night)', '30 days', 'after food'],
  ['Telmisartan 40 mg tablet', '1 tablet', 'Once a day (OD)', '30 days', 'morning, before breakfast'],
  ['Paracetamol 650 mg tablet', '1 tablet', 'When required (SOS)', '3 days', 'for fever above 100 F, at least 6 hours apart'],
  ['Cetirizine 10 mg tablet', '1 tablet', 'At bedtime (HS)', '5 days', undefined],
  ['Betadine 2% gargle', '10 ml in half a glass of warm water', 'Three times a day (TDS)', '5 days', undefined],
  ['Ferrous ascorbate + folic acid tablet', '1 tablet', '0-1-0 (once a day: afternoon)', '3 months', 'after lunch, with orange juice'],
  ['Vitamin C 500 mg tablet', '1 tablet', 'Once a day (OD)', '1 month', undefined],
  ['Pantoprazole 40 mg tablet', '1 tablet', 'Once a day (OD)', '14 days', 'empty stomach, 30 minutes before breakfast'],
  ['Amoxicillin 500 mg capsule', '1 capsule', 'Three times a day (TDS)', '5 days', 'complete the course'],
  ['ORS sachet', '1 sachet in 1 litre of water', 'When required (SOS)', '3 days', 'sip after every loose stool'],
  ['Levothyroxine 50 mcg tablet', '1 tablet', 'Once a day (OD)', '3 months', 'empty stomach, early morning'],
  ['Cholecalciferol 60000 IU sachet', '1 sachet', 'Once a week', '8 weeks', 'with milk'],
];
const TESTS = [
  'Complete blood count (CBC)',
  'HbA1c',
  'Lipid profile',
  'Thyroid stimulating hormone (TSH)',
  'Serum vitamin B12',
  'Serum ferritin',
  'Peripheral smear',
  'Fasting blood sugar',
  'Serum creatinine',
  'Urine routine',
  'Dengue NS1 antigen',
  'Chest X-ray PA view',
];
const ADVICE = [
  'Drink plenty of water. Come fasting for the lipid profile. Bring the reports at the next visit.',
  'Iron-rich diet: green leafy vegetables, jaggery, dates. Avoid tea with meals.',
  'Walk 30 minutes daily. Reduce salt and sugar. Check blood pressure weekly.',
  'Steam inhalation twice a day. Warm fluids. Rest for three days.',
  'भोजन के बाद दवा लें। अगले सप्ताह फिर से दिखाएँ।',
];
const HI_TYPE_DISPLAY = { OPConsultation: 'OP Consultation', Prescription: 'Prescription', DiagnosticReport: 'Diagnostic Report' };
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function loadTemplates(examplesDir) {
  return EXAMPLES.map((n) => JSON.parse(readFileSync(new URL(`${n}.request.json`, examplesDir), 'utf8')));
}

function makeDocFactory(templates, seed) {
  const r = prng(seed);
  const int = (n) => Math.floor(r() * n);
  const pick = (a) => a[int(a.length)];
  const digits = (n) => {
    let s = '';
    for (let i = 0; i < n; i++) s += String(int(10));
    return s;
  };
  const sample = (a, min, max) => {
    const n = min + int(max - min + 1);
    const out = [];
    for (let i = 0; i < n; i++) out.push(pick(a));
    return out;
  };

  const person = () => {
    if (r() < 0.03) return { display: pick(NATIVE), handle: `${pick(FIRST).toLowerCase()}${digits(3)}` };
    const f = pick(FIRST);
    const l = pick(LAST);
    return { display: `${f} ${l}`, handle: `${f.toLowerCase()}${pick(['.', '_', ''])}${l.toLowerCase()}${r() < 0.5 ? digits(2) : ''}` };
  };

  const content = (hiType, hospital, doctor, visitId, visitDate, dateLabel, hospitalName, occurrence) => {
    const bundleData = { hospital, doctor };
    if (hiType === 'Prescription' || r() < 0.3) {
      bundleData.diagnosis = sample(DIAGNOSES, 1, 4).map(([name, icd]) => {
        const d = { diagnosisName: name, status: pick(STATUSES) };
        if (r() < 0.8) d.icdCode = icd;
        return d;
      });
    }
    if (hiType === 'Prescription') {
      bundleData.medications = sample(DRUGS, 1, 8).map(([drugName, dosage, frequency, duration, instructions]) => {
        const m = { drugName, dosage, frequency, duration };
        if (instructions !== undefined) m.instructions = instructions;
        return m;
      });
    } else {
      bundleData.labInvestigations = sample(TESTS, 1, 6).map((testName) => (r() < 0.2 ? { testName, instructions: '12 hours fasting' } : { testName }));
    }
    if (hiType === 'DiagnosticReport') bundleData.documentUrl = `https://records.example.org/reports/${visitId.replace(/[^A-Za-z0-9-]/g, '-')}-${occurrence}.pdf`;
    if (r() < 0.6) bundleData.advice = pick(ADVICE);
    return {
      referenceNumber: `${visitId.replace(/[^A-Za-z0-9_.-]+/g, '-')}-${hiType}${occurrence > 1 ? `-${occurrence}` : ''}`,
      display: `${HI_TYPE_DISPLAY[hiType]} at ${hospitalName} on ${dateLabel}`,
      hiType,
      bundleData,
    };
  };

  const valid = () => {
    // Template choice: mostly single-care-context visits, like a real EMR feed.
    const u = r();
    const t = u < 0.55 ? templates[0] : u < 0.8 ? templates[1] : templates[2];
    const hiTypes = t.careContexts.map((c) => c.hiType);
    const patient = person();
    const doc = person();
    const hospitalName = `${pick(HOSP_WORD)} ${pick(HOSP_KIND)}`;
    const hipId = `IN${pick(STATE_CODES)}10${digits(6)}`;
    const y = 2024 + int(3);
    const m = 1 + int(12);
    const d = 1 + int(28);
    const visitDate = `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
    const dateLabel = `${d} ${MONTHS[m - 1]} ${y}`;
    const visitId = pick([`OPD-${y}-${digits(5)}`, `LV/OPD/${y}/${m}/${digits(4)}`, `ENC-${digits(7)}`, `${digits(10)}`]);
    const hospital = { name: hospitalName, id: hipId };
    if (r() < 0.9) hospital.phone = `0${digits(2)}-${digits(8)}`;
    if (r() < 0.5) hospital.email = `records${digits(2)}@clinic-${digits(4)}.example`;
    const doctor = { name: `Dr. ${doc.display}`, licNumber: `${pick(LIC_PREFIX)}-${digits(5)}` };
    if (r() < 0.5) doctor.hpId = `71-${digits(4)}-${digits(4)}-${digits(4)}`;
    const seen = {};
    const careContexts = hiTypes.map((hiType) => {
      seen[hiType] = (seen[hiType] ?? 0) + 1;
      return content(hiType, hospital, doctor, visitId, visitDate, dateLabel, hospitalName, seen[hiType]);
    });
    return {
      abhaAddress: `${patient.handle}@${r() < 0.9 ? 'sbx' : 'abdm'}`,
      hipId,
      hospitalName,
      visitDate,
      visitId,
      careContexts,
    };
  };

  // Each makes one schema error (the document still parses as JSON).
  const BREAKS = [
    (o) => void delete o.abhaAddress,
    (o) => void delete o.careContexts[0].bundleData.doctor,
    (o) => void (o.visitDate = `${o.visitDate.slice(8, 10)}/${o.visitDate.slice(5, 7)}/${o.visitDate.slice(0, 4)}`),
    (o) => void (o.visitDate = o.visitDate.replace(/-\d\d$/, '-31').replace(/-(\d\d)-/, '-13-')),
    (o) => void (o.visitId = Number(o.visitId.replace(/\D/g, '')) || 42),
    (o) => void (o.patientName = 'Test Patient'),
    (o) => void (o.hipId = ''),
    (o) => void (o.careContexts[0].display = 'x'.repeat(1100)),
    (o) => void (o.careContexts[0].bundleData.hospital.email = 'not-an-email'),
    (o) => void (o.careContexts = {}),
    (o) => void (o.careContexts[0].bundleData.diagnosis = [{ status: 'confirmed' }]),
  ];

  return () => {
    const o = valid();
    if (r() < INVALID_RATE) {
      pick(BREAKS)(o);
      return { text: JSON.stringify(o), valid: false };
    }
    return { text: JSON.stringify(o), valid: true };
  };
}

/**
 * Writes about `megabytes` * 10^6 bytes of NDJSON to `outPath` (whole lines,
 * stops at the first line that reaches the size). Returns what was written.
 */
export function generateNdjson(outPath, megabytes, examplesDir = new URL('../examples/', import.meta.url)) {
  const target = Math.round(megabytes * 1e6);
  const next = makeDocFactory(loadTemplates(examplesDir), SEED);
  const fd = openSync(outPath, 'w');
  let bytes = 0;
  let docs = 0;
  let invalid = 0;
  let buf = '';
  try {
    while (bytes < target) {
      const d = next();
      const line = `${d.text}\n`;
      buf += line;
      bytes += Buffer.byteLength(line);
      docs++;
      if (!d.valid) invalid++;
      if (buf.length >= 1 << 20) {
        writeSync(fd, buf);
        buf = '';
      }
    }
    if (buf !== '') writeSync(fd, buf);
  } finally {
    closeSync(fd);
  }
  return { generatorVersion: GENERATOR_VERSION, seed: SEED, megabytes, bytes, docs, invalid };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [out, mb] = process.argv.slice(2);
  if (out === undefined || !(Number(mb) > 0)) {
    process.stderr.write('usage: node bench/gen-ndjson.mjs OUT.ndjson MEGABYTES\n');
    process.exit(2);
  }
  process.stdout.write(`${JSON.stringify(generateNdjson(out, Number(mb)))}\n`);
}
