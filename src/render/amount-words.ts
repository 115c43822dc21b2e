/**
 * An amount of rupees in words, as an Indian bill writes it: Indian numbering (thousand, lakh, crore), rupees and
 * paise, "only" at the end. English (en-IN) only: `Intl` spells no numbers, and no small, well-kept library spells
 * them in the Indian languages; docs/render.md names the languages a bill prints without the words.
 */

const ONES = ['', 'One', 'Two', 'Three', 'Four', 'Five', 'Six', 'Seven', 'Eight', 'Nine', 'Ten', 'Eleven', 'Twelve', 'Thirteen', 'Fourteen', 'Fifteen', 'Sixteen', 'Seventeen', 'Eighteen', 'Nineteen'];
const TENS = ['', '', 'Twenty', 'Thirty', 'Forty', 'Fifty', 'Sixty', 'Seventy', 'Eighty', 'Ninety'];

/** 1 to 99 in words ('' for 0). */
function belowHundred(n: number): string {
  if (n < 20) return ONES[n] ?? '';
  const unit = n % 10;
  return `${TENS[Math.floor(n / 10)] ?? ''}${unit === 0 ? '' : `-${ONES[unit] ?? ''}`}`;
}

/** 1 to 999 in words ('' for 0). */
function belowThousand(n: number): string {
  const hundreds = Math.floor(n / 100);
  const rest = belowHundred(n % 100);
  return [hundreds === 0 ? '' : `${ONES[hundreds] ?? ''} Hundred`, rest].filter((x) => x !== '').join(' ');
}

/** A whole number in words with Indian grouping: 12,34,567 is "Twelve Lakh Thirty-Four Thousand Five Hundred Sixty-Seven". */
export function indianNumberWords(whole: number): string {
  if (whole === 0) return 'Zero';
  const crore = Math.floor(whole / 1e7);
  const lakh = Math.floor((whole % 1e7) / 1e5);
  const thousand = Math.floor((whole % 1e5) / 1e3);
  const rest = whole % 1e3;
  return [crore === 0 ? '' : `${indianNumberWords(crore)} Crore`, lakh === 0 ? '' : `${belowHundred(lakh)} Lakh`, thousand === 0 ? '' : `${belowHundred(thousand)} Thousand`, belowThousand(rest)]
    .filter((x) => x !== '')
    .join(' ');
}

/**
 * An amount in Indian rupees in words, or null for what is not a finite amount of at least zero (or is over a
 * thousand crore, which no clinic bill reaches).
 *
 * @example
 * rupeesInWords(123456.5) //=> 'Rupees One Lakh Twenty-Three Thousand Four Hundred Fifty-Six and Fifty Paise Only'
 */
export function rupeesInWords(amount: number): string | null {
  if (!Number.isFinite(amount) || amount < 0 || amount >= 1e10) return null;
  const paiseTotal = Math.round(amount * 100);
  const rupees = Math.floor(paiseTotal / 100);
  const paise = paiseTotal % 100;
  const words = `Rupees ${indianNumberWords(rupees)}`;
  return `${paise === 0 ? words : `${words} and ${belowHundred(paise)} Paise`} Only`;
}
