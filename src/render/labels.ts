/**
 * The printed labels, one table per language. Data is printed as given;
 * only these labels, month names and record-type names change with the
 * language.
 */
import { HI_TYPE_DISPLAY, type HiType } from '../spec/hi-types.js';
import { MONTHS_EN } from '../time.js';

/**
 * Languages of the labels: English and Hindi.
 *
 * @example
 * LANGUAGES //=> ['en', 'hi']
 */
export const LANGUAGES = ['en', 'hi'] as const;

/**
 * A label language.
 *
 * @example
 * const lang: Language = 'hi'
 */
export type Language = (typeof LANGUAGES)[number];

/**
 * Every label a bundled template prints. Custom templates read them as `labels.<key>`.
 *
 * @example
 * // in a template: <th>{{labels.dosage}}</th>
 */
export interface Labels {
  readonly prescription: string;
  readonly labOrder: string;
  readonly visitSummary: string;
  readonly facilityId: string;
  readonly phone: string;
  readonly email: string;
  readonly doctor: string;
  readonly licNumber: string;
  readonly hpId: string;
  readonly patient: string;
  readonly ageSex: string;
  readonly years: string;
  readonly months: string;
  readonly abhaAddress: string;
  readonly abhaNumber: string;
  readonly visitDate: string;
  readonly visitId: string;
  readonly diagnosis: string;
  readonly icdCode: string;
  readonly status: string;
  readonly medications: string;
  readonly number: string;
  readonly drug: string;
  readonly dosage: string;
  readonly frequency: string;
  readonly duration: string;
  readonly instructions: string;
  readonly labInvestigations: string;
  readonly test: string;
  readonly sampleCollected: string;
  readonly clinicalDetails: string;
  readonly advice: string;
  readonly followUp: string;
  readonly signature: string;
  readonly careContext: string;
  readonly recordType: string;
  readonly record: string;
  readonly document: string;
  readonly qrCode: string;
  readonly noMedications: string;
  readonly noInvestigations: string;
  readonly noDiagnosis: string;
  readonly address: string;
  readonly qualification: string;
  readonly specialty: string;
  /** The medical council that registered the doctor. */
  readonly council: string;
  /** Registration particulars: the council and the registration number. */
  readonly registration: string;
  readonly genericName: string;
  readonly strength: string;
  readonly form: string;
  readonly route: string;
  readonly mobile: string;
  readonly weight: string;
  readonly vitals: string;
  readonly bloodPressure: string;
  readonly pulse: string;
  readonly temperature: string;
  readonly spo2: string;
  readonly respiratoryRate: string;
  readonly height: string;
  readonly bmi: string;
  readonly morning: string;
  readonly afternoon: string;
  readonly evening: string;
  readonly night: string;
  /** The page number in the page margin: `{page}` and `{pages}` are replaced by the numbers. */
  readonly pageOf: string;
  /** Printed, with a line to write on, where the patient's name is not known. */
  readonly patientNameBlank: string;
  /** Said of a section that goes on from the previous page. */
  readonly continued: string;
}

/**
 * Labels by language.
 *
 * @example
 * LABELS.hi.prescription //=> 'दवा का पर्चा'
 * LABELS.en.licNumber    //=> 'Reg. No.'
 */
export const LABELS: Readonly<Record<Language, Labels>> = {
  en: {
    prescription: 'Prescription',
    labOrder: 'Lab investigation order',
    visitSummary: 'Visit summary',
    facilityId: 'Facility ID',
    phone: 'Phone',
    email: 'Email',
    doctor: 'Doctor',
    licNumber: 'Reg. No.',
    hpId: 'HPR ID',
    patient: 'Patient',
    ageSex: 'Age / Sex',
    years: 'y',
    months: 'mo',
    abhaAddress: 'ABHA address',
    abhaNumber: 'ABHA number',
    visitDate: 'Date',
    visitId: 'Visit ID',
    diagnosis: 'Diagnosis',
    icdCode: 'ICD-10',
    status: 'Status',
    medications: 'Medicines',
    number: 'No.',
    drug: 'Medicine',
    dosage: 'Dose',
    frequency: 'Frequency',
    duration: 'Duration',
    instructions: 'Instructions',
    labInvestigations: 'Investigations',
    test: 'Test',
    sampleCollected: 'Sample collected',
    clinicalDetails: 'Clinical details',
    advice: 'Advice',
    followUp: 'Follow-up',
    signature: 'Signature and stamp',
    careContext: 'Record reference',
    recordType: 'Record type',
    record: 'Record',
    document: 'Document',
    qrCode: 'QR code of the document link',
    noMedications: 'No medicines prescribed.',
    noInvestigations: 'No investigations ordered.',
    noDiagnosis: 'No diagnosis recorded.',
    address: 'Address',
    qualification: 'Qualification',
    specialty: 'Specialty',
    council: 'Council',
    registration: 'Registration',
    genericName: 'Generic name',
    strength: 'Strength',
    form: 'Form',
    route: 'Route',
    mobile: 'Mobile',
    weight: 'Weight',
    vitals: 'Vitals',
    bloodPressure: 'BP',
    pulse: 'Pulse',
    temperature: 'Temp.',
    spo2: 'SpO₂',
    respiratoryRate: 'Resp. rate',
    height: 'Height',
    bmi: 'BMI',
    morning: 'Morning',
    afternoon: 'Afternoon',
    evening: 'Evening',
    night: 'Night',
    pageOf: 'Page {page} of {pages}',
    patientNameBlank: 'Patient name:',
    continued: 'continued',
  },
  hi: {
    prescription: 'दवा का पर्चा',
    labOrder: 'जाँच अनुरोध पत्र',
    visitSummary: 'परामर्श सारांश',
    facilityId: 'सुविधा आईडी',
    phone: 'फ़ोन',
    email: 'ईमेल',
    doctor: 'डॉक्टर',
    licNumber: 'पंजीकरण सं.',
    hpId: 'HPR आईडी',
    patient: 'रोगी',
    ageSex: 'आयु / लिंग',
    years: 'वर्ष',
    months: 'माह',
    abhaAddress: 'ABHA पता',
    abhaNumber: 'ABHA संख्या',
    visitDate: 'दिनांक',
    visitId: 'विज़िट आईडी',
    diagnosis: 'निदान',
    icdCode: 'ICD-10',
    status: 'स्थिति',
    medications: 'दवाइयाँ',
    number: 'क्र.',
    drug: 'दवा',
    dosage: 'खुराक',
    frequency: 'कितनी बार',
    duration: 'अवधि',
    instructions: 'निर्देश',
    labInvestigations: 'जाँचें',
    test: 'जाँच',
    sampleCollected: 'नमूना लिया गया',
    clinicalDetails: 'नैदानिक विवरण',
    advice: 'सलाह',
    followUp: 'फ़ॉलो-अप',
    signature: 'हस्ताक्षर एवं मुहर',
    careContext: 'रिकॉर्ड संदर्भ',
    recordType: 'रिकॉर्ड का प्रकार',
    record: 'रिकॉर्ड',
    document: 'दस्तावेज़',
    qrCode: 'दस्तावेज़ लिंक का QR कोड',
    noMedications: 'कोई दवा नहीं लिखी गई।',
    noInvestigations: 'कोई जाँच नहीं लिखी गई।',
    noDiagnosis: 'कोई निदान दर्ज नहीं।',
    address: 'पता',
    qualification: 'योग्यता',
    specialty: 'विशेषज्ञता',
    council: 'परिषद',
    registration: 'पंजीकरण',
    genericName: 'जेनेरिक नाम',
    strength: 'मात्रा',
    form: 'रूप',
    route: 'कैसे लें',
    mobile: 'मोबाइल',
    weight: 'वज़न',
    vitals: 'जाँच के माप',
    bloodPressure: 'बीपी',
    pulse: 'नब्ज़',
    temperature: 'तापमान',
    spo2: 'SpO₂',
    respiratoryRate: 'साँस की दर',
    height: 'लंबाई',
    bmi: 'BMI',
    morning: 'सुबह',
    afternoon: 'दोपहर',
    evening: 'शाम',
    night: 'रात',
    pageOf: 'पृष्ठ {page} / {pages}',
    patientNameBlank: 'रोगी का नाम:',
    continued: 'जारी',
  },
};

/**
 * Month names for printed dates.
 *
 * @example
 * MONTHS.hi[10] //=> 'नवंबर'
 */
export const MONTHS: Readonly<Record<Language, readonly string[]>> = {
  en: MONTHS_EN,
  hi: ['जनवरी', 'फ़रवरी', 'मार्च', 'अप्रैल', 'मई', 'जून', 'जुलाई', 'अगस्त', 'सितंबर', 'अक्टूबर', 'नवंबर', 'दिसंबर'],
};

/**
 * Patient-facing names of ABDM's hiTypes, one table per language: every
 * language names every hiType (a missing one is a compile error). English
 * is the core's HI_TYPE_DISPLAY. Unknown hiTypes print as given.
 *
 * @example
 * HI_TYPE_LABELS.hi.OPConsultation //=> 'ओपीडी परामर्श'
 * HI_TYPE_LABELS.en.OPConsultation //=> 'OP Consultation'
 */
export const HI_TYPE_LABELS = {
  en: HI_TYPE_DISPLAY,
  hi: {
    OPConsultation: 'ओपीडी परामर्श',
    Prescription: 'दवा का पर्चा',
    DischargeSummary: 'डिस्चार्ज सारांश',
    DiagnosticReport: 'जाँच रिपोर्ट',
    ImmunizationRecord: 'टीकाकरण रिकॉर्ड',
    HealthDocumentRecord: 'स्वास्थ्य दस्तावेज़',
    WellnessRecord: 'वेलनेस रिकॉर्ड',
    Invoice: 'बिल',
  },
} as const satisfies Record<Language, Readonly<Record<HiType, string>>>;

/**
 * Patient-facing names of ABDM's hiTypes in Hindi: {@link HI_TYPE_LABELS}`.hi`.
 *
 * @example
 * HI_TYPE_LABELS_HI.OPConsultation //=> 'ओपीडी परामर्श'
 */
export const HI_TYPE_LABELS_HI: Readonly<Record<string, string>> = HI_TYPE_LABELS.hi;
