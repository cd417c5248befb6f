import { createRng, daysBefore } from './prng.js';

/**
 * The demo business for the receptionist tools: an invented physiotherapy clinic in
 * Sydney, with services, hours (one split day, Sunday closed), policies, FAQs and
 * bookings spread around the anchor date.
 */

export const DEMO_BUSINESS_SLUG = 'harbourside-physio';
const TZ = 'Australia/Sydney';

export const demoBusiness = {
  slug: DEMO_BUSINESS_SLUG,
  name: 'Harbourside Physio',
  industry: 'Physiotherapy clinic',
  phone: '+61 2 9555 0142',
  email: 'hello@harbourside-physio.example',
  address: 'Level 1, 24 Wharf Street, Pyrmont NSW 2009, Australia',
  website: 'https://harbourside-physio.example',
  timezone: TZ,
  services: [
    {
      name: 'Initial consultation',
      description: 'Assessment, diagnosis and first treatment with a treatment plan.',
      duration_minutes: 60,
      price: 120,
      category: 'physiotherapy',
    },
    {
      name: 'Follow-up treatment',
      description: 'Standard follow-up session with your physiotherapist.',
      duration_minutes: 30,
      price: 95,
      category: 'physiotherapy',
    },
    {
      name: 'Extended treatment',
      description: 'Longer session for complex or multiple injuries.',
      duration_minutes: 45,
      price: 130,
      category: 'physiotherapy',
    },
    {
      name: 'Sports massage',
      description: 'Deep-tissue massage for training and recovery.',
      duration_minutes: 60,
      price: 110,
      category: 'massage',
    },
    {
      name: 'Remedial massage',
      description: 'Targeted massage for tight or sore areas.',
      duration_minutes: 30,
      price: 75,
      category: 'massage',
    },
    {
      name: 'Dry needling add-on',
      description: 'Added to a physiotherapy session when suitable.',
      duration_minutes: 15,
      price: 35,
      category: 'physiotherapy',
    },
    {
      name: 'Clinical pilates class',
      description: 'Small-group class (max 4) led by a physiotherapist.',
      duration_minutes: 55,
      price: 40,
      category: 'classes',
    },
  ],
  working_hours: {
    monday: [{ open: '07:00', close: '19:00' }],
    tuesday: [{ open: '07:00', close: '19:00' }],
    wednesday: [
      { open: '07:00', close: '12:30' },
      { open: '13:30', close: '19:00' },
    ],
    thursday: [{ open: '07:00', close: '20:00' }],
    friday: [{ open: '07:00', close: '17:00' }],
    saturday: [{ open: '08:00', close: '13:00' }],
    sunday: [],
  },
};

export const demoPolicies = [
  {
    topic: 'cancellation',
    title: 'Cancellation policy',
    content:
      'Please give at least 24 hours notice to cancel an appointment. Cancellations with less than 24 hours notice are charged 50% of the session fee, and missed appointments without notice are charged in full. We waive the fee once a year for genuine emergencies.',
  },
  {
    topic: 'reschedule',
    title: 'Rescheduling',
    content:
      'You can move an appointment free of charge up to 24 hours before it starts, by phone, by email or through the link in your confirmation SMS. Changes within 24 hours are treated as a late cancellation unless we can fill the slot.',
  },
  {
    topic: 'late_arrival',
    title: 'Late arrival',
    content:
      'If you arrive late, your session will still finish at the booked time so the next patient is not delayed, and the full fee applies. If you are more than 15 minutes late for a 30-minute session we may need to reschedule.',
  },
  {
    topic: 'deposits',
    title: 'Deposits',
    content:
      'Initial consultations and pilates class packs require a deposit of $30 when booking online. The deposit is deducted from your first session fee and is refundable if you cancel more than 24 hours ahead.',
  },
  {
    topic: 'refunds',
    title: 'Refunds',
    content:
      'Unused pilates class packs can be refunded within 60 days of purchase, minus classes already attended at the casual rate. Session fees are not refundable once the treatment has taken place, but please talk to us if you are unhappy with a session.',
  },
  {
    topic: 'payment',
    title: 'Payment and health funds',
    content:
      'Payment is due at the end of each session. We accept cards, Apple Pay and Google Pay, and claim on the spot for most private health funds with HICAPS. Medicare care plans (EPC) are bulk billed gap-free for up to 5 sessions a year.',
  },
];

export const demoFaqs = [
  {
    topic: 'parking',
    question: 'Is there parking nearby?',
    answer:
      'Yes. The Harris Street car park next door offers 2 hours free with validation from reception, and there is metered street parking on Wharf Street after 10 am.',
    tags: ['parking', 'location'],
  },
  {
    topic: 'location',
    question: 'Where are you located?',
    answer:
      'We are on Level 1, 24 Wharf Street in Pyrmont, above the pharmacy. Take the lift from the Wharf Street entrance.',
    tags: ['location', 'directions'],
  },
  {
    topic: 'location',
    question: 'Can I get there by public transport?',
    answer: 'The Pyrmont Bay light rail stop is a 3-minute walk and buses 389 and 501 stop on Harris Street.',
    tags: ['location', 'transport'],
  },
  {
    topic: 'pricing',
    question: 'How much does a session cost?',
    answer:
      'An initial consultation is $120 (60 minutes) and a follow-up is $95 (30 minutes). Massage starts at $75 and pilates classes are $40.',
    tags: ['pricing', 'fees'],
  },
  {
    topic: 'pricing',
    question: 'Can I claim on my health fund?',
    answer: 'Yes, we claim on the spot with HICAPS for most private health funds, so you only pay the gap.',
    tags: ['pricing', 'health fund'],
  },
  {
    topic: 'referral',
    question: 'Do I need a referral from a GP?',
    answer:
      'No referral is needed to see a physiotherapist. You need a GP care plan only if you want Medicare to cover the session.',
    tags: ['referral', 'medicare'],
  },
  {
    topic: 'first_visit',
    question: 'What should I bring to my first appointment?',
    answer:
      'Bring any scans or reports, your health fund card and comfortable clothes that let us see the injured area. Please arrive 10 minutes early to fill in the intake form.',
    tags: ['first visit', 'what to bring'],
  },
  {
    topic: 'hours',
    question: 'Are you open on weekends?',
    answer: 'We are open Saturday from 8 am to 1 pm and closed on Sundays and public holidays.',
    tags: ['hours', 'weekend'],
  },
  {
    topic: 'accessibility',
    question: 'Is the clinic wheelchair accessible?',
    answer: 'Yes. There is step-free access from Wharf Street, a lift to Level 1 and an accessible bathroom.',
    tags: ['accessibility'],
  },
  {
    topic: 'gift_vouchers',
    question: 'Do you sell gift vouchers?',
    answer: 'Yes, gift vouchers for any amount are available at reception and are valid for 12 months.',
    tags: ['gift', 'voucher'],
  },
  {
    topic: 'pilates',
    question: 'How do pilates classes work?',
    answer:
      'Classes are small groups of up to 4 people. Start with an initial consultation so the physio can set your program, then book classes individually or as a 10-class pack.',
    tags: ['pilates', 'classes'],
  },
];

const CUSTOMERS: [string, string, string][] = [
  ['Sarah Mitchell', '+61 412 345 678', 'sarah.mitchell@example.com'],
  ['James Nguyen', '+61 423 118 904', 'james.nguyen@example.com'],
  ['Priya Sharma', '+61 434 552 017', 'priya.s@example.com'],
  ['Tom Fletcher', '+61 401 776 230', 'tom.fletcher@example.com'],
  ['Olivia Chen', '+61 455 903 661', 'olivia.chen@example.com'],
  ["Liam O'Brien", '+61 478 210 445', 'liam.obrien@example.com'],
  ['Mia Rossi', '+61 419 664 382', 'mia.rossi@example.com'],
  ['Noah Williams', '+61 466 009 127', 'noah.w@example.com'],
  ['Ava Patel', '+61 437 820 516', 'ava.patel@example.com'],
  ['Lucas Martin', '+61 488 341 790', 'lucas.martin@example.com'],
];

/** An ISO timestamp with offset for a local wall-clock time in `tz`. */
export function zonedIso(date: string, time: string, tz: string): string {
  const wall = Date.parse(`${date}T${time}:00Z`);
  const offsetAt = (instant: number) => {
    const parts = new Intl.DateTimeFormat('en-CA', {
      timeZone: tz,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).formatToParts(new Date(instant));
    const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '00';
    return Date.parse(`${get('year')}-${get('month')}-${get('day')}T${get('hour')}:${get('minute')}:00Z`) - instant;
  };
  const offset = offsetAt(wall - offsetAt(wall));
  const sign = offset >= 0 ? '+' : '-';
  const abs = Math.abs(offset) / 60_000;
  return `${date}T${time}:00${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

export function demoBookings(anchor: Date) {
  const rng = createRng(11);
  const services = demoBusiness.services.filter((s) => s.category !== 'physiotherapy' || s.duration_minutes >= 30);
  const bookings = [];
  for (let i = 0; i < 40; i++) {
    const [name, phone, email] = CUSTOMERS[i % CUSTOMERS.length] ?? CUSTOMERS[0]!;
    const offset = rng.int(-60, 21); // days relative to the anchor
    const date = daysBefore(anchor, -offset);
    // Sundays are closed; Saturday mornings only.
    const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
    if (weekday === 0) continue;
    const hour = weekday === 6 ? rng.int(8, 11) : rng.int(7, 16);
    const service = i === 0 ? demoBusiness.services[1]! : rng.pick(services);
    const past = offset < 0;
    const status = past
      ? rng.weighted([
          ['completed', 8],
          ['cancelled', 1.5],
          ['no_show', 0.5],
        ] as const)
      : rng.weighted([
          ['confirmed', 8],
          ['pending', 2],
        ] as const);
    bookings.push({
      reference: `HP-${1001 + i}`,
      business_slug: DEMO_BUSINESS_SLUG,
      customer_name: name,
      customer_phone: phone,
      customer_email: email,
      service: service.name,
      booking_datetime: zonedIso(date, `${String(hour).padStart(2, '0')}:${rng.pick(['00', '30'])}`, TZ),
      duration_minutes: service.duration_minutes,
      status,
      price: service.price,
      ...(rng.chance(0.3)
        ? {
            customer_notes: rng.pick([
              'Lower back pain after gardening.',
              'Right knee, running injury.',
              'Prefers a female physio.',
              'Shoulder stiffness from desk work.',
              'Follow-up after ankle sprain.',
            ]),
          }
        : {}),
    });
  }
  // Sarah Mitchell has a booking coming up: the "when is my appointment?" example.
  bookings.push({
    reference: 'HP-1100',
    business_slug: DEMO_BUSINESS_SLUG,
    customer_name: 'Sarah Mitchell',
    customer_phone: '0412 345 678',
    customer_email: 'sarah.mitchell@example.com',
    service: 'Follow-up treatment',
    booking_datetime: zonedIso(daysBefore(anchor, -30), '10:30', TZ),
    duration_minutes: 30,
    status: 'confirmed',
    price: 95,
    customer_notes: 'Lower back, third session.',
  });
  return bookings;
}
