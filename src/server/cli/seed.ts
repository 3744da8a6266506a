import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { and, count, desc, eq } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import sharp from 'sharp';
import type { ActionMode, Category, Currency } from '../../shared/constants';
import { CreateCampaignInput } from '../../shared/schemas/campaigns';
import { TEST_CARDS } from '../../shared/schemas/donations';
import { CreateProjectInput } from '../../shared/schemas/projects';
import { validateSessionToken } from '../auth/session';
import { ConfigError, loadConfig, type Config } from '../config';
import { DataDirInUseError, openDatabase, type Db } from '../db/client';
import { campaigns, emailOutbox, projects, users } from '../db/schema';
import type { Actor, Deps, SignedInActor } from '../deps';
import { audienceOf } from '../lib/access';
import { recordChange } from '../lib/history';
import { dataDirKey } from '../lib/keys';
import { createRateLimiter } from '../lib/rate-limit';
import { createMetrics } from '../http/metrics';
import { createMailer } from '../mail/mailer';
import { setAdmin } from '../modules/users/admin-grant';
import { createSandboxProvider, sandboxKey } from '../payments/sandbox';
import { createServices, type Services } from '../services';
import { createLocalStorage, uploadsDir } from '../storage/storage';

/**
 * `npm run seed`: fills an EMPTY database (the configured one: DATABASE_URL, else PGlite under
 * DATA_DIR) with a believable demo: 12 people, about 30 campaigns and 15 projects across every
 * category, with generated cover and gallery pictures uploaded through the uploads service.
 * Everything goes through the services (registration, email verification, uploads, create,
 * follow) except what has no API yet (a person's name, tags and adult access, the backdated
 * creation dates), which is written to the database directly, with a change-history entry.
 * A database that already has accounts is left alone. No email leaves the machine: messages
 * stay in the outbox table.
 */

// ---------------------------------------------------------------------------------------------
// The demo's content
// ---------------------------------------------------------------------------------------------

interface PersonSpec {
  key: string;
  name: string;
  username: string;
  tags: string[];
  admin?: boolean;
  adult?: boolean;
}

const PEOPLE: PersonSpec[] = [
  { key: 'amara', name: 'Amara Okafor', username: 'amara', tags: ['community', 'events', 'repair'], admin: true },
  { key: 'jonas', name: 'Jonas Weber', username: 'jonas.weber', tags: ['music', 'synths', 'recording'] },
  { key: 'priya', name: 'Priya Raman', username: 'priya', tags: ['code', 'open-source', 'accessibility'] },
  { key: 'lucia', name: 'Lucía Fernández', username: 'lucia.f', tags: ['photography', 'analog', 'travel'] },
  { key: 'tomas', name: 'Tomás Novák', username: 'tomas', tags: ['film', 'documentary', 'editing'] },
  { key: 'hannah', name: 'Hannah Lee', username: 'hannah', tags: ['design', 'typography', 'print'] },
  { key: 'kwame', name: 'Kwame Mensah', username: 'kwame', tags: ['games', 'pixel-art', 'indie'] },
  { key: 'sofia', name: 'Sofia Rossi', username: 'sofia.rossi', tags: ['literature', 'poetry', 'translation'] },
  { key: 'ethan', name: 'Ethan Brooks', username: 'ethan', tags: ['podcast', 'local-history', 'audio'] },
  { key: 'mei', name: 'Mei Chen', username: 'mei.chen', tags: ['research', 'ecology', 'citizen-science'] },
  { key: 'noah', name: 'Noah Fischer', username: 'noah', tags: ['art', 'murals', 'street-art'] },
  { key: 'rosa', name: 'Rosa Delgado', username: 'rosa', tags: ['art', 'life-drawing', 'cabaret'], adult: true },
];

/** The admin and the regular person whose sign-in the command prints. */
const ADMIN_KEY = 'amara';
const REGULAR_KEY = 'lucia';
const emailOf = (key: string) => `${key}@example.com`;

interface ItemSpec {
  owner: string;
  type: Category;
  title: string;
  description: string;
  tags: string[];
  /** Major units, or a head count when targetType is supporters. */
  goal: number;
  currency: Currency;
  targetType?: 'amount' | 'supporters';
  actionMode: ActionMode;
  /** Days from now of the coordinated action (negative: it is past); campaigns only. */
  executionInDays?: number;
  /** How many days ago it was created. */
  ageDays: number;
  /** Gallery pictures (1-3). */
  gallery: number;
}

const CAMPAIGNS: ItemSpec[] = [
  {
    owner: 'noah',
    type: 'art',
    title: 'A mural for the Eastside underpass',
    description:
      'The underpass on Mill Road is the grimmest 40 metres in the neighbourhood. With paint, scaffolding and a weekend of volunteers we will turn it into a river of birds designed with the kids from the primary school next door.\n\nYour donation pays for exterior paint, anti-graffiti coating and the scaffold hire.',
    tags: ['mural', 'street-art', 'community'],
    goal: 4800,
    currency: 'EUR',
    actionMode: 'donation',
    executionInDays: 21,
    ageDays: 12,
    gallery: 3,
  },
  {
    owner: 'noah',
    type: 'art',
    title: 'Open studio weekends for teenagers',
    description:
      'Every second weekend the studio opens its doors to anyone aged 13 to 18: easels, paints and two artists to help. Sign up to mentor a session or chip in for materials.',
    tags: ['workshop', 'youth', 'painting'],
    goal: 2500,
    currency: 'USD',
    actionMode: 'both',
    ageDays: 40,
    gallery: 2,
  },
  {
    owner: 'amara',
    type: 'art',
    title: 'A wood-fired kiln for the pottery club',
    description:
      'Our pottery club has outgrown the tiny electric kiln. A wood-fired kiln in the allotment yard lets thirty members fire together, and the first firing is a party for the whole street.',
    tags: ['ceramics', 'pottery', 'community'],
    goal: 6000,
    currency: 'GBP',
    actionMode: 'donation',
    executionInDays: -10,
    ageDays: 60,
    gallery: 2,
  },
  {
    owner: 'priya',
    type: 'code',
    title: "Screen-reader support for the city's bus timetable app",
    description:
      'The official timetable app is unusable with a screen reader. We are rebuilding its open-source front end with proper labels, focus order and live announcements, tested with blind and low-vision riders every week.',
    tags: ['accessibility', 'open-source', 'transit'],
    goal: 8000,
    currency: 'EUR',
    actionMode: 'donation',
    ageDays: 25,
    gallery: 2,
  },
  {
    owner: 'priya',
    type: 'code',
    title: 'Maintainer time for a tiny date library',
    description:
      'Forty thousand projects depend on a 3 kB date library kept alive by two volunteers. Fund one day a week of maintenance: security fixes, time-zone updates and a long-overdue documentation site.',
    tags: ['open-source', 'javascript', 'maintenance'],
    goal: 1500,
    currency: 'USD',
    actionMode: 'both',
    ageDays: 5,
    gallery: 1,
  },
  {
    owner: 'mei',
    type: 'code',
    title: 'Offline-first field notes app for park rangers',
    description:
      'Rangers record sightings on paper because there is no signal in the valley. An offline-first app that syncs when they are back at the station saves hours of typing and keeps the data clean.',
    tags: ['offline', 'mobile', 'conservation'],
    goal: 12000,
    currency: 'USD',
    actionMode: 'donation',
    executionInDays: 60,
    ageDays: 33,
    gallery: 2,
  },
  {
    owner: 'sofia',
    type: 'literature',
    title: 'Translating three Sardinian poets into English',
    description:
      'Three living poets writing in Sardinian have never been translated. A bilingual edition of sixty poems, printed by a small press and sent to every library that asks for it.',
    tags: ['poetry', 'translation', 'small-press'],
    goal: 3200,
    currency: 'GBP',
    actionMode: 'donation',
    ageDays: 18,
    gallery: 2,
  },
  {
    owner: 'sofia',
    type: 'literature',
    title: 'A reading night in every branch library',
    description:
      'One evening, twelve libraries, local writers reading their own work. We need 150 people who promise to come and bring a friend, so the libraries keep their doors open late.',
    tags: ['readings', 'libraries', 'events'],
    goal: 150,
    currency: 'USD',
    targetType: 'supporters',
    actionMode: 'support',
    executionInDays: 9,
    ageDays: 7,
    gallery: 1,
  },
  {
    owner: 'amara',
    type: 'other',
    title: 'Repair café: tools and a van',
    description:
      'Once a month volunteers fix toasters, bikes and torn jackets for free. A second-hand van and a proper tool kit let us bring the repair café to the estates on the edge of town.',
    tags: ['repair', 'sustainability', 'community'],
    goal: 5400,
    currency: 'EUR',
    actionMode: 'both',
    executionInDays: 30,
    ageDays: 15,
    gallery: 3,
  },
  {
    owner: 'ethan',
    type: 'other',
    title: 'Saturday chess club at the senior centre',
    description: 'Residents of the senior centre asked for chess partners. Pledge to come for an hour on Saturday mornings: boards and tea are provided.',
    tags: ['chess', 'seniors', 'community'],
    goal: 40,
    currency: 'USD',
    targetType: 'supporters',
    actionMode: 'support',
    executionInDays: -3,
    ageDays: 20,
    gallery: 1,
  },
  {
    owner: 'rosa',
    type: 'adult',
    title: 'Figure drawing nights with live nude models (18+)',
    description:
      'Weekly untutored life drawing with professional nude models, for adults only. Donations pay the models a fair rate and keep the studio heated through the winter.',
    tags: ['life-drawing', 'figure', 'nude'],
    goal: 2000,
    currency: 'EUR',
    actionMode: 'both',
    executionInDays: 12,
    ageDays: 9,
    gallery: 2,
  },
  {
    owner: 'rosa',
    type: 'adult',
    title: 'Burlesque revue: costumes for the spring show (18+)',
    description:
      'A cabaret troupe of eleven performers needs feathers, corsetry and a lot of sequins for its spring burlesque revue. Adults only, and the best seats go to our backers.',
    tags: ['burlesque', 'cabaret', 'costumes'],
    goal: 3500,
    currency: 'GBP',
    actionMode: 'donation',
    executionInDays: 45,
    ageDays: 27,
    gallery: 2,
  },
  {
    owner: 'jonas',
    type: 'music',
    title: 'Record our first album in a real studio',
    description:
      'Four years of basement gigs, ten songs, one week in a studio with a producer we love. Backers get the album on vinyl and their name in the sleeve notes.',
    tags: ['album', 'indie', 'recording'],
    goal: 9000,
    currency: 'EUR',
    actionMode: 'donation',
    executionInDays: 75,
    ageDays: 14,
    gallery: 3,
  },
  {
    owner: 'jonas',
    type: 'music',
    title: 'Modular synth workshop for beginners',
    description: 'Patch cables, oscillators and no prior knowledge needed. We ran the first workshop with thirty people and want to make it a monthly thing.',
    tags: ['synths', 'workshop', 'electronic'],
    goal: 30,
    currency: 'EUR',
    targetType: 'supporters',
    actionMode: 'support',
    executionInDays: -14,
    ageDays: 50,
    gallery: 2,
  },
  {
    owner: 'amara',
    type: 'music',
    title: 'Brass instruments for the school band',
    description:
      'The school band shares four trumpets between nineteen children. Second-hand brass instruments, serviced by a local repairer, mean every child can take one home to practise.',
    tags: ['brass', 'school', 'instruments'],
    goal: 7500,
    currency: 'GBP',
    actionMode: 'both',
    ageDays: 3,
    gallery: 1,
  },
  {
    owner: 'lucia',
    type: 'photography',
    title: 'A community darkroom in the old print shop',
    description:
      'Enlargers, trays and a safe light: we are turning the back room of the old print shop into a darkroom anyone can book for a few euros an hour, with free introductions every Sunday.',
    tags: ['darkroom', 'film-photography', 'analog'],
    goal: 6400,
    currency: 'EUR',
    actionMode: 'donation',
    executionInDays: 40,
    ageDays: 11,
    gallery: 3,
  },
  {
    owner: 'lucia',
    type: 'photography',
    title: 'Night market portraits: a photo book',
    description: 'Two years of portraits of the people who run the night market stalls, printed as a hardback book. Every vendor in it gets a copy.',
    tags: ['portraits', 'photo-book', 'street'],
    goal: 4200,
    currency: 'USD',
    actionMode: 'donation',
    ageDays: 38,
    gallery: 3,
  },
  {
    owner: 'mei',
    type: 'photography',
    title: 'Camera traps for the river otter survey',
    description:
      'Otters are back on the river, but nobody knows how many. Twelve camera traps along the banks, checked by volunteers, will give us the first proper count in twenty years.',
    tags: ['wildlife', 'camera-trap', 'otters'],
    goal: 2800,
    currency: 'GBP',
    actionMode: 'donation',
    executionInDays: -30,
    ageDays: 70,
    gallery: 2,
  },
  {
    owner: 'tomas',
    type: 'film',
    title: 'Documentary: the last ferry across the lake',
    description:
      'After ninety years the lake ferry stops running this autumn. We are filming its crew and passengers through the final season, for a feature-length documentary and a free screening in the harbour.',
    tags: ['documentary', 'ferry', 'feature'],
    goal: 15000,
    currency: 'EUR',
    actionMode: 'donation',
    executionInDays: 90,
    ageDays: 22,
    gallery: 3,
  },
  {
    owner: 'tomas',
    type: 'film',
    title: 'Outdoor cinema nights in the park',
    description:
      'An inflatable screen, a borrowed projector and six summer evenings of classic films. We need 200 people to say they will come before the council lends us the park.',
    tags: ['cinema', 'outdoor', 'summer'],
    goal: 200,
    currency: 'EUR',
    targetType: 'supporters',
    actionMode: 'both',
    executionInDays: 5,
    ageDays: 4,
    gallery: 2,
  },
  {
    owner: 'sofia',
    type: 'film',
    title: 'Subtitles in five languages for an indie short',
    description:
      'A twelve-minute short about a deaf boxer, invited to festivals in four countries. Professional subtitles in five languages make it watchable for everyone.',
    tags: ['subtitles', 'translation', 'short-film'],
    goal: 1200,
    currency: 'USD',
    actionMode: 'donation',
    executionInDays: -7,
    ageDays: 16,
    gallery: 1,
  },
  {
    owner: 'hannah',
    type: 'design',
    title: 'An open-source typeface for public signage',
    description:
      'A typeface designed for reading at a distance, in poor light and at an angle, released under the Open Font License so every town can use it on its signs for free.',
    tags: ['typography', 'open-source', 'signage'],
    goal: 5000,
    currency: 'USD',
    actionMode: 'donation',
    ageDays: 30,
    gallery: 3,
  },
  {
    owner: 'hannah',
    type: 'design',
    title: 'Risograph zine fair: tables and ink',
    description: 'Forty makers, one hall, a risograph printing live in the corner. Help us rent the hall and stock the ink, or pledge to help on the day.',
    tags: ['risograph', 'zines', 'print'],
    goal: 1800,
    currency: 'GBP',
    actionMode: 'both',
    executionInDays: 18,
    ageDays: 6,
    gallery: 2,
  },
  {
    owner: 'amara',
    type: 'design',
    title: 'Wayfinding signs for the community garden',
    description:
      'Visitors keep getting lost between the beehives and the compost. Hand-painted, weatherproof signs designed with the gardeners will fix that for good.',
    tags: ['wayfinding', 'garden', 'signage'],
    goal: 900,
    currency: 'EUR',
    actionMode: 'donation',
    executionInDays: -20,
    ageDays: 45,
    gallery: 1,
  },
  {
    owner: 'kwame',
    type: 'game',
    title: 'Pixel-art roguelike: the last three levels',
    description:
      'Lantern Deep is a pixel-art roguelike about a lighthouse keeper descending into a flooded mine. Two levels are done and playable; your support pays for the last three and the soundtrack.',
    tags: ['pixel-art', 'roguelike', 'indie'],
    goal: 10000,
    currency: 'USD',
    actionMode: 'donation',
    executionInDays: 120,
    ageDays: 19,
    gallery: 3,
  },
  {
    owner: 'kwame',
    type: 'game',
    title: 'Board game café night for the neighbourhood',
    description: 'A hundred board games, a back room and free coffee on Thursday evenings. Say you will come and we will keep the back room booked.',
    tags: ['board-games', 'community', 'evenings'],
    goal: 60,
    currency: 'GBP',
    targetType: 'supporters',
    actionMode: 'support',
    executionInDays: 3,
    ageDays: 2,
    gallery: 1,
  },
  {
    owner: 'ethan',
    type: 'podcast',
    title: "Season two of 'Streets with Stories'",
    description:
      'Each episode walks one street and tells its history through the people who lived there. Season two covers the docklands, with archive recordings we have never been allowed to air before.',
    tags: ['local-history', 'audio', 'storytelling'],
    goal: 3000,
    currency: 'GBP',
    actionMode: 'both',
    ageDays: 13,
    gallery: 2,
  },
  {
    owner: 'ethan',
    type: 'podcast',
    title: 'Microphones for a youth radio workshop',
    description:
      'Teenagers from the estate make a weekly radio show on borrowed phones. Six decent microphones and a mixer will make them sound as good as their ideas.',
    tags: ['radio', 'youth', 'audio'],
    goal: 2200,
    currency: 'EUR',
    actionMode: 'donation',
    executionInDays: 25,
    ageDays: 1,
    gallery: 1,
  },
  {
    owner: 'mei',
    type: 'research',
    title: 'Mapping microplastics along the river',
    description:
      'Volunteers take water samples at twenty points from the spring to the estuary on the same morning; a university lab counts the particles. The map and the raw data will be public.',
    tags: ['microplastics', 'citizen-science', 'river'],
    goal: 7000,
    currency: 'EUR',
    actionMode: 'donation',
    executionInDays: 50,
    ageDays: 8,
    gallery: 3,
  },
  {
    owner: 'mei',
    type: 'research',
    title: 'Open data on urban bee populations',
    description:
      'A season of counting wild bees on balconies and rooftops across the city, with a simple protocol anyone can follow. Results are published as open data for researchers and planners.',
    tags: ['bees', 'open-data', 'ecology'],
    goal: 4000,
    currency: 'USD',
    actionMode: 'both',
    executionInDays: -45,
    ageDays: 90,
    gallery: 2,
  },
];

const PROJECTS: ItemSpec[] = [
  {
    owner: 'rosa',
    type: 'adult',
    title: 'Life drawing collective (18+)',
    description:
      'An artist-run collective for nude figure drawing: shared model fees, a rotating studio and an exhibition at the end of each season. Adults only.',
    tags: ['life-drawing', 'nude', 'collective'],
    goal: 25,
    currency: 'EUR',
    targetType: 'supporters',
    actionMode: 'support',
    ageDays: 35,
    gallery: 1,
  },
  {
    owner: 'priya',
    type: 'code',
    title: 'Accessible forms toolkit',
    description:
      'Form components that work with screen readers, keyboards and voice control out of the box, with tests that prove it. Looking for contributors and testers.',
    tags: ['accessibility', 'react', 'open-source'],
    goal: 0,
    currency: 'USD',
    actionMode: 'support',
    ageDays: 28,
    gallery: 2,
  },
  {
    owner: 'priya',
    type: 'code',
    title: 'Open bus timetable data',
    description:
      'Scraping, cleaning and publishing the region’s bus timetables as GTFS, updated nightly, so anyone can build a better app than the official one.',
    tags: ['open-data', 'transit', 'gtfs'],
    goal: 500,
    currency: 'EUR',
    actionMode: 'donation',
    ageDays: 55,
    gallery: 1,
  },
  {
    owner: 'jonas',
    type: 'music',
    title: 'Neighbourhood choir',
    description: 'No auditions, no sheet music required. We meet on Tuesday evenings in the church hall and sing whatever the group votes for.',
    tags: ['choir', 'singing', 'community'],
    goal: 50,
    currency: 'GBP',
    targetType: 'supporters',
    actionMode: 'support',
    ageDays: 42,
    gallery: 2,
  },
  {
    owner: 'jonas',
    type: 'music',
    title: 'Synth lending library',
    description:
      'Donated synthesizers and drum machines, lent out for two weeks at a time like library books, with a repair bench for when they come back broken.',
    tags: ['synths', 'lending', 'electronic'],
    goal: 1200,
    currency: 'EUR',
    actionMode: 'both',
    ageDays: 10,
    gallery: 2,
  },
  {
    owner: 'lucia',
    type: 'photography',
    title: 'Pinhole camera club',
    description: 'Build a camera from a biscuit tin on the first Saturday, shoot with it all month, develop together at the end. Beginners especially welcome.',
    tags: ['pinhole', 'analog', 'workshop'],
    goal: 300,
    currency: 'EUR',
    actionMode: 'both',
    ageDays: 24,
    gallery: 3,
  },
  {
    owner: 'tomas',
    type: 'film',
    title: 'Micro-budget film collective',
    description:
      'We share kit, crew and editing suites so that every member finishes one short film a year. Currently shooting two shorts and looking for a sound recordist.',
    tags: ['filmmaking', 'collective', 'short-film'],
    goal: 0,
    currency: 'EUR',
    actionMode: 'support',
    ageDays: 48,
    gallery: 2,
  },
  {
    owner: 'hannah',
    type: 'design',
    title: 'Open-source signage system',
    description:
      'Pictograms, a typeface and layout rules for public signs, published with templates so that a small council can make clear signs without an agency.',
    tags: ['signage', 'typography', 'wayfinding'],
    goal: 2000,
    currency: 'USD',
    actionMode: 'donation',
    ageDays: 17,
    gallery: 2,
  },
  {
    owner: 'kwame',
    type: 'game',
    title: 'Monthly game jam',
    description:
      'Forty-eight hours, one theme, pizza on Saturday night. Programmers, artists, musicians and first-timers all welcome; every game gets played on the big screen on Sunday.',
    tags: ['game-jam', 'indie', 'community'],
    goal: 100,
    currency: 'GBP',
    targetType: 'supporters',
    actionMode: 'support',
    ageDays: 21,
    gallery: 2,
  },
  {
    owner: 'sofia',
    type: 'literature',
    title: 'Small-press translation circle',
    description: 'Translators of poetry from small languages meet monthly to workshop drafts and pitch them to publishers together.',
    tags: ['translation', 'poetry', 'small-press'],
    goal: 0,
    currency: 'GBP',
    actionMode: 'support',
    ageDays: 63,
    gallery: 1,
  },
  {
    owner: 'ethan',
    type: 'podcast',
    title: 'Oral history archive',
    description: 'Recording the memories of older residents before they are lost, transcribed and stored in the public library’s sound archive.',
    tags: ['oral-history', 'archive', 'audio'],
    goal: 1500,
    currency: 'GBP',
    actionMode: 'both',
    ageDays: 37,
    gallery: 2,
  },
  {
    owner: 'mei',
    type: 'research',
    title: 'River watch volunteers',
    description: 'Monthly water-quality testing at fixed points on the river, with kits and training provided. Results go into a shared public dataset.',
    tags: ['citizen-science', 'river', 'water-quality'],
    goal: 0,
    currency: 'EUR',
    actionMode: 'support',
    ageDays: 80,
    gallery: 3,
  },
  {
    owner: 'mei',
    type: 'research',
    title: 'Seed bank for heritage vegetables',
    description: 'Collecting, growing out and sharing seeds of local vegetable varieties that seed companies no longer sell.',
    tags: ['seeds', 'gardening', 'heritage'],
    goal: 800,
    currency: 'EUR',
    actionMode: 'donation',
    ageDays: 31,
    gallery: 2,
  },
  {
    owner: 'noah',
    type: 'art',
    title: 'Murals for empty shop fronts',
    description: 'Landlords lend us their boarded-up shop fronts, local artists paint them, and the high street looks alive again until new tenants move in.',
    tags: ['murals', 'street-art', 'high-street'],
    goal: 3000,
    currency: 'GBP',
    actionMode: 'both',
    ageDays: 14,
    gallery: 3,
  },
  {
    owner: 'amara',
    type: 'other',
    title: 'Neighbourhood tool library',
    description:
      'Drills, ladders, pressure washers and a tile cutter, lent for free to members. Donate a tool you rarely use or volunteer at the Saturday counter.',
    tags: ['tools', 'sharing', 'repair'],
    goal: 0,
    currency: 'EUR',
    actionMode: 'support',
    ageDays: 26,
    gallery: 1,
  },
];

/** Who follows which project (by title). */
const FOLLOWS: [string, string][] = [
  ['lucia', 'Micro-budget film collective'],
  ['sofia', 'Oral history archive'],
  ['kwame', 'Accessible forms toolkit'],
  ['amara', 'River watch volunteers'],
  ['noah', 'Open-source signage system'],
  ['jonas', 'Monthly game jam'],
  ['tomas', 'Pinhole camera club'],
  ['hannah', 'Murals for empty shop fronts'],
  ['ethan', 'Neighbourhood choir'],
  ['mei', 'Neighbourhood tool library'],
];

// ---------------------------------------------------------------------------------------------
// Generated pictures: an SVG (gradient, shapes, the item's title) rendered to PNG by sharp,
// then uploaded like any other file (the uploads service re-encodes it to WebP/JPEG).
// ---------------------------------------------------------------------------------------------

const PALETTES: Record<Category, [string, string, string]> = {
  art: ['#ff7e5f', '#7b4397', '#ffd194'],
  code: ['#0f2027', '#2c5364', '#4ecdc4'],
  literature: ['#5d4157', '#a8caba', '#f4e2d8'],
  other: ['#3a6186', '#89253e', '#f7b733'],
  adult: ['#41295a', '#2f0743', '#e96443'],
  music: ['#fc466b', '#3f5efb', '#ffe29f'],
  photography: ['#232526', '#7f7f7f', '#f2c94c'],
  film: ['#141e30', '#243b55', '#e0c3fc'],
  design: ['#ff9966', '#ff5e62', '#fffbd5'],
  game: ['#11998e', '#38ef7d', '#fdfc47'],
  podcast: ['#8e2de2', '#4a00e0', '#f8ffae'],
  research: ['#134e5e', '#71b280', '#e8f5c8'],
};

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');

/** A small deterministic PRNG (mulberry32), seeded from a string, so a title always gets the same picture. */
function prng(seedText: string): () => number {
  let a = 0;
  for (const ch of seedText) a = (Math.imul(a ^ ch.charCodeAt(0), 2654435761) + 0x9e3779b9) | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function wrap(text: string, maxChars: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && `${line} ${word}`.length > maxChars) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

function shapes(rand: () => number, w: number, h: number, accent: string): string {
  const out: string[] = [];
  for (let i = 0; i < 7; i++) {
    const x = Math.round(rand() * w);
    const y = Math.round(rand() * h * 0.7);
    const size = Math.round((0.06 + rand() * 0.22) * w);
    const opacity = (0.08 + rand() * 0.22).toFixed(2);
    const fill = rand() < 0.4 ? accent : '#ffffff';
    const kind = rand();
    if (kind < 0.5) out.push(`<circle cx="${x}" cy="${y}" r="${size / 2}" fill="${fill}" fill-opacity="${opacity}"/>`);
    else if (kind < 0.8) {
      out.push(
        `<rect x="${x}" y="${y}" width="${size}" height="${Math.round(size * 0.6)}" rx="${Math.round(size * 0.08)}" fill="${fill}" fill-opacity="${opacity}" transform="rotate(${Math.round(rand() * 50 - 25)} ${x} ${y})"/>`,
      );
    } else {
      out.push(`<polygon points="${x},${y} ${x + size},${y + size / 3} ${x + size / 4},${y + size}" fill="${fill}" fill-opacity="${opacity}"/>`);
    }
  }
  return out.join('');
}

const FONT = 'DejaVu Sans, Liberation Sans, Helvetica, Arial, sans-serif';

/** A 16:9 cover (or a gallery picture) as PNG bytes. */
async function itemPicture(title: string, type: Category, variant: 'cover' | number): Promise<Buffer> {
  const [c1, c2, accent] = PALETTES[type];
  const rand = prng(`${title}:${variant}`);
  const portrait = variant !== 'cover' && variant % 2 === 1;
  const w = variant === 'cover' ? 1280 : portrait ? 768 : 1024;
  const h = variant === 'cover' ? 720 : portrait ? 1024 : 768;
  const fontSize = variant === 'cover' ? (title.length > 44 ? 54 : 64) : 44;
  const lines = wrap(title, Math.floor((w * 0.86) / (fontSize * 0.58))).slice(0, 4);
  const lineHeight = Math.round(fontSize * 1.18);
  const top = h - 64 - lineHeight * (lines.length - 1);
  const angle = variant === 'cover' ? 0 : Math.round(rand() * 90);
  const label = variant === 'cover' ? type.toUpperCase() : `${type.toUpperCase()} · ${variant}`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">
<defs>
  <linearGradient id="bg" gradientTransform="rotate(${angle} 0.5 0.5)" x1="0" y1="0" x2="1" y2="1">
    <stop offset="0" stop-color="${variant === 'cover' ? c1 : c2}"/><stop offset="1" stop-color="${variant === 'cover' ? c2 : c1}"/>
  </linearGradient>
  <linearGradient id="shade" x1="0" y1="0" x2="0" y2="1"><stop offset="0.45" stop-color="#000" stop-opacity="0"/><stop offset="1" stop-color="#000" stop-opacity="0.45"/></linearGradient>
</defs>
<rect width="${w}" height="${h}" fill="url(#bg)"/>
${shapes(rand, w, h, accent)}
<rect width="${w}" height="${h}" fill="url(#shade)"/>
<text x="48" y="72" font-family="${FONT}" font-size="26" font-weight="bold" letter-spacing="4" fill="#ffffff" fill-opacity="0.85">${xml(label)}</text>
${lines
  .map((l, i) => `<text x="48" y="${top + i * lineHeight}" font-family="${FONT}" font-size="${fontSize}" font-weight="bold" fill="#ffffff">${xml(l)}</text>`)
  .join('\n')}
</svg>`;
  return sharp(Buffer.from(svg)).png({ compressionLevel: 3 }).toBuffer();
}

/** A square avatar with the person's initials. */
async function avatarPicture(name: string, index: number): Promise<Buffer> {
  const palettes = Object.values(PALETTES);
  const [c1, c2] = palettes[index % palettes.length];
  const initials = name
    .split(/\s+/)
    .map((p) => p[0])
    .join('')
    .slice(0, 2)
    .toUpperCase();
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${c1}"/><stop offset="1" stop-color="${c2}"/></linearGradient></defs>
<rect width="400" height="400" fill="url(#g)"/>
<text x="200" y="250" text-anchor="middle" font-family="${FONT}" font-size="160" font-weight="bold" fill="#ffffff">${xml(initials)}</text>
</svg>`;
  return sharp(Buffer.from(svg)).png({ compressionLevel: 3 }).toBuffer();
}

// ---------------------------------------------------------------------------------------------
// Seeding
// ---------------------------------------------------------------------------------------------

export interface SeedCredentials {
  email: string;
  password: string;
  name: string;
}

export type SeedResult =
  | { seeded: false; message: string }
  | {
      seeded: true;
      message: string;
      users: number;
      campaigns: number;
      projects: number;
      images: number;
      follows: number;
      donations: number;
      admin: SeedCredentials;
      user: SeedCredentials;
    };

/** A logger that keeps quiet but for warnings and errors (the outbox mailer logs every kept email at info). */
function quietLogger(): FastifyBaseLogger {
  const noop = () => {};
  const log: Record<string, unknown> = {
    level: 'warn',
    fatal: (...a: unknown[]) => console.error(...a),
    error: (...a: unknown[]) => console.error(...a),
    warn: (...a: unknown[]) => console.warn(...a),
    info: noop,
    debug: noop,
    trace: noop,
    silent: noop,
  };
  log.child = () => log;
  return log as unknown as FastifyBaseLogger;
}

/**
 * Dependencies for seeding, built like app.ts does, except that email always stays in the
 * outbox table (whatever SMTP_URL says) and rate limits are off.
 */
export async function seedDeps(db: Db, config: Config, log: FastifyBaseLogger = quietLogger()): Promise<Deps> {
  const mailer = await createMailer({ db, smtpUrl: undefined, from: config.mailFrom, log });
  // the sandbox confirms payments through the donations service's webhook call, as in the app
  let services: Services | undefined;
  const deps: Deps = {
    db,
    config,
    mailer,
    limiter: createRateLimiter(db, 0),
    log,
    storage: createLocalStorage(uploadsDir(config.dataDir)),
    payments: createSandboxProvider({
      key: sandboxKey(config.dataDir),
      deliver: async (name, body, headers) => void (await services!.donations.receiveWebhook(name, body, headers)),
    }),
    receiptKey: dataDirKey(config.dataDir, 'receipt-link.key'),
    metrics: createMetrics(),
  };
  services = createServices(deps);
  return deps;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Seeds the demo on an empty database; on one that has accounts it changes nothing. */
export async function seedDemo(deps: Deps, opts: { password?: string; progress?: (line: string) => void } = {}): Promise<SeedResult> {
  const { db } = deps;
  const progress = opts.progress ?? (() => {});
  const [{ n: existing }] = await db.select({ n: count() }).from(users);
  if (Number(existing) > 0) {
    return { seeded: false, message: `The database is not empty (${existing} account${Number(existing) === 1 ? '' : 's'}): nothing was seeded.` };
  }

  const password = opts.password ?? `demo-${randomBytes(5).toString('hex')}`;
  const services = createServices(deps);
  const now = Date.now();
  const actors = new Map<string, SignedInActor>();
  let imageCount = 0;

  // people: register, verify the address from the outbox, profile (no API yet), sign in, avatar
  progress(`Creating ${PEOPLE.length} people...`);
  for (const [i, p] of PEOPLE.entries()) {
    const ip = `127.0.0.${10 + i}`;
    const email = emailOf(p.key);
    await services.auth.register({ email, password, username: p.username }, { user: null, session: null, ip });
    const [mail] = await db
      .select({ text: emailOutbox.text })
      .from(emailOutbox)
      .where(and(eq(emailOutbox.to, email), eq(emailOutbox.kind, 'verify_email')))
      .orderBy(desc(emailOutbox.createdAt))
      .limit(1);
    const token = mail?.text.match(/verify-email\?token=([A-Za-z0-9_-]+)/)?.[1];
    if (!token) throw new Error(`no verification link was sent to ${email}`);
    await services.auth.verifyEmail({ token }, { user: null, session: null, ip });

    const createdAt = new Date(now - (120 + i * 7) * DAY_MS);
    await db.transaction(async (tx) => {
      const [u] = await tx
        .update(users)
        .set({ name: p.name, tags: p.tags, hasAdultAccess: p.adult === true, createdAt, updatedAt: createdAt })
        .where(eq(users.email, email))
        .returning({ id: users.id });
      await recordChange(tx, {
        modelName: 'User',
        action: 'update',
        key: u.id,
        fields: ['name', 'tags', ...(p.adult ? ['hasAdultAccess'] : [])],
        subjectUserId: u.id,
      });
    });
    if (p.admin && !(await setAdmin(db, email, true))) throw new Error(`could not make ${email} an admin`);

    const grant = await services.auth.login({ email, password }, { user: null, session: null, ip });
    const valid = await validateSessionToken(db, grant.token);
    if (!valid) throw new Error(`could not sign in as ${email}`);
    const actor: SignedInActor = { user: valid.user, session: valid.session, ip };
    await services.uploads.uploadAvatar(actor, { filename: `${p.name}.png`, data: await avatarPicture(p.name, i) });
    imageCount += 1;
    actors.set(p.key, actor);
  }

  async function pictures(actor: Actor, item: ItemSpec) {
    const [cover] = (
      await services.uploads.uploadCampaignImages(
        actor,
        [{ filename: `${item.title} (cover).png`, data: await itemPicture(item.title, item.type, 'cover') }],
        'cover',
      )
    ).images;
    const files = [];
    for (let g = 1; g <= item.gallery; g++) {
      files.push({ filename: `${item.title} (${g} of ${item.gallery}).png`, data: await itemPicture(item.title, item.type, g) });
    }
    const gallery = (await services.uploads.uploadCampaignImages(actor, files, 'gallery')).images;
    imageCount += 1 + gallery.length;
    return { imageUrl: cover.url, images: gallery };
  }

  const actorOf = (key: string) => {
    const a = actors.get(key);
    if (!a) throw new Error(`unknown demo person ${key}`);
    return a;
  };

  progress(`Creating ${CAMPAIGNS.length} campaigns with pictures...`);
  const campaignIds = new Map<string, { id: string; owner: string; goal: number; adult: boolean; takesMoney: boolean; pastDate: Date | null }>();
  for (const c of CAMPAIGNS) {
    const actor = actorOf(c.owner);
    const pics = await pictures(actor, c);
    const created = await services.campaigns.create(
      actor,
      CreateCampaignInput.parse({
        title: c.title,
        description: c.description,
        tags: c.tags,
        type: c.type,
        targetType: c.targetType ?? 'amount',
        goalAmount: c.goal,
        currency: c.currency,
        actionMode: c.actionMode,
        // a campaign that has taken place took its gifts before its date: the date is set after them (below)
        executionDate: c.executionInDays === undefined || c.executionInDays < 0 ? null : new Date(now + c.executionInDays * DAY_MS),
        ...pics,
      }),
    );
    // backdated, so the list reads like weeks of activity (no API sets a creation date)
    const createdAt = new Date(now - c.ageDays * DAY_MS - Math.round(prng(c.title)() * 8 * 3600_000));
    await db.update(campaigns).set({ createdAt, updatedAt: createdAt }).where(eq(campaigns.id, created._id));
    campaignIds.set(c.title, {
      id: created._id,
      owner: c.owner,
      goal: c.goal,
      adult: audienceOf({ type: c.type, releasedAt: new Date() }) === 'adult',
      takesMoney: c.actionMode !== 'support' && (c.targetType ?? 'amount') === 'amount',
      pastDate: c.executionInDays !== undefined && c.executionInDays < 0 ? new Date(now + c.executionInDays * DAY_MS) : null,
    });
  }

  // donations through the service and the sandbox's test card, as a visitor gives: a few people
  // per campaign (never its owner), some monthly, one guest, and the first gift refunded
  progress('Giving donations with the test card...');
  let donationCount = 0;
  let refunded = false;
  for (const [title, c] of campaignIds) {
    if (!c.takesMoney || c.adult) continue;
    const rand = prng(`donations:${title}`);
    const givers = PEOPLE.filter((p) => p.key !== c.owner && !p.adult).filter(() => rand() < 0.45);
    for (const [n, giver] of givers.entries()) {
      // between 2 % and 12 % of the goal, in whole units
      const amount = Math.max(5, Math.round(c.goal * (0.02 + rand() * 0.1)));
      const monthly = n === 0 && rand() < 0.5;
      const gift = await services.donations.donate(actorOf(giver.key), c.id, { amount, monthly, card: TEST_CARDS.succeeds }, `seed:${title}:${giver.key}`);
      donationCount += 1;
      if (!refunded) {
        await services.donations.refund(actorOf(c.owner), gift._id, { reason: 'Given twice by mistake' });
        refunded = true;
      }
    }
    if (rand() < 0.3) {
      await services.donations.donate(
        { user: null, session: null, ip: '127.0.0.99' },
        c.id,
        { amount: 20, monthly: false, email: `guest.${donationCount}@example.com`, card: TEST_CARDS.succeeds },
        `seed:${title}:guest`,
      );
      donationCount += 1;
    }
  }
  // the campaigns that have taken place reach their date now that their gifts are in
  for (const c of campaignIds.values()) {
    if (c.pastDate) await db.update(campaigns).set({ executionDate: c.pastDate }).where(eq(campaigns.id, c.id));
  }

  progress(`Creating ${PROJECTS.length} projects with pictures...`);
  const projectIds = new Map<string, string>();
  for (const p of PROJECTS) {
    const actor = actorOf(p.owner);
    const pics = await pictures(actor, p);
    const created = await services.projects.create(
      actor,
      CreateProjectInput.parse({
        title: p.title,
        description: p.description,
        tags: p.tags,
        type: p.type,
        targetType: p.targetType ?? 'amount',
        goalAmount: p.goal,
        currency: p.currency,
        actionMode: p.actionMode,
        ...pics,
      }),
    );
    const createdAt = new Date(now - p.ageDays * DAY_MS - Math.round(prng(p.title)() * 8 * 3600_000));
    await db.update(projects).set({ createdAt, updatedAt: createdAt }).where(eq(projects.id, created._id));
    projectIds.set(p.title, created._id);
  }

  for (const [who, title] of FOLLOWS) {
    const id = projectIds.get(title);
    if (!id) throw new Error(`unknown demo project ${title}`);
    await services.projects.follow(actorOf(who), id, true);
  }

  // the sessions were only for seeding
  for (const actor of actors.values()) await services.auth.logout(actor);

  const person = (key: string): SeedCredentials => ({ email: emailOf(key), password, name: PEOPLE.find((p) => p.key === key)!.name });
  return {
    seeded: true,
    message: `Seeded ${PEOPLE.length} people, ${CAMPAIGNS.length} campaigns, ${PROJECTS.length} projects, ${imageCount} pictures, ${donationCount} donations (test card) and ${FOLLOWS.length} project follows.`,
    users: PEOPLE.length,
    campaigns: CAMPAIGNS.length,
    projects: PROJECTS.length,
    images: imageCount,
    follows: FOLLOWS.length,
    donations: donationCount,
    admin: person(ADMIN_KEY),
    user: person(REGULAR_KEY),
  };
}

async function main() {
  if (process.argv.length > 2) {
    console.error('Usage: npm run seed   (seeds the configured database, which must have no accounts yet)');
    process.exit(2);
  }
  const started = Date.now();
  const config = loadConfig();
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    directDatabaseUrl: config.directDatabaseUrl,
    prepare: config.databasePrepare,
    dataDir: config.dataDir,
  });
  try {
    console.log(`Database: ${database.describe}`);
    await database.migrate();
    const result = await seedDemo(await seedDeps(database.db, config), { progress: (l) => console.log(l) });
    console.log(result.message);
    if (result.seeded) {
      console.log(`Pictures are stored under ${uploadsDir(config.dataDir)}. Done in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
      console.log('');
      console.log(`Sign in as the admin:   ${result.admin.email} / ${result.admin.password}`);
      console.log(`Sign in as a regular user: ${result.user.email} / ${result.user.password}`);
      console.log(`(every demo account, <name>@example.com, has the password ${result.user.password})`);
    }
  } finally {
    await database.close();
  }
}

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  main().catch((err) => {
    console.error(err instanceof ConfigError || err instanceof DataDirInUseError ? err.message : err);
    process.exit(1);
  });
}
