import { z } from 'zod';
import { nullableText, text, uuid } from './fields.js';

/** A business's profile, services, hours, bookings and knowledge, and the admin API's edits of it. */

export const businessRow = z.object({
  business_id: uuid,
  slug: text,
  name: text,
  industry: nullableText,
  phone: nullableText,
  email: nullableText,
  address: nullableText,
  website: nullableText,
  timezone: text,
  services: z.array(z.record(z.string(), z.unknown())),
  working_hours: z.record(z.string(), z.unknown()),
});

export const serviceRow = z.object({
  business_id: uuid,
  name: text,
  description: nullableText,
  duration_minutes: z.number().int().nullable(),
  price: z.number().nullable(),
  category: nullableText,
});

export const workingHoursRow = z.object({
  business_id: uuid,
  timezone: text,
  day: z.enum(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']),
  day_index: z.number().int().min(1).max(7),
  opens: nullableText,
  closes: nullableText,
  is_closed: z.boolean(),
});

export const bookingRow = z.object({
  booking_id: uuid,
  reference: text,
  business_id: uuid,
  customer_name: text,
  customer_phone: nullableText,
  customer_email: nullableText,
  service: text,
  booking_datetime: text,
  /** `YYYY-MM-DD HH24:MI` in the business's time zone. */
  booking_local: text,
  timezone: text,
  duration_minutes: z.number().int(),
  status: z.enum(['pending', 'confirmed', 'completed', 'cancelled', 'no_show']),
  price: z.number().nullable(),
  customer_notes: nullableText,
});

export const policyRow = z.object({
  policy_id: uuid,
  business_id: uuid,
  topic: text,
  title: text,
  content: text,
  updated_at: text,
});

export const faqRow = z.object({
  faq_id: uuid,
  business_id: uuid,
  topic: text,
  question: text,
  answer: text,
  tags: z.array(text),
  updated_at: text,
});

export const availabilityRow = z.object({
  business_id: uuid,
  timezone: text,
  slot_start: text,
  slot_local: text,
  duration_minutes: z.number().int(),
});
export const takenMessageRow = z.object({ message_id: uuid, business_id: uuid, created_at: text });

export const adminBusinessRow = z.object({ business_id: uuid, tenant_id: uuid, slug: text, name: text });
export const adminPolicyRow = z.object({
  id: uuid,
  business_id: uuid,
  topic: text,
  title: text,
  content: text,
  updated_at: text,
});
export const adminFaqRow = z.object({
  id: uuid,
  business_id: uuid,
  topic: text,
  question: text,
  answer: text,
  tags: z.array(z.string()),
  updated_at: text,
});
export const deletedRow = z.object({ id: uuid });
