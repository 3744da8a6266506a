/**
 * Words for the benchmark's generated campaigns, most frequent first: word k is drawn with a
 * probability proportional to 1/k (Zipf), so the first words appear in a large share of the rows
 * and the last ones in well under one percent. No English stop words (to_tsvector drops them).
 */
const WORDS = `
community project music local support album festival garden school studio film book photo design
youth street river build library world story family theatre dance radio podcast history science
research data tools software print zine poetry novel comic animation documentary short series season
tour concert band choir orchestra jazz folk electronic synth vinyl guitar piano drums violin voice
song recording video camera darkroom gallery mural painting sculpture ceramics pottery textile
fashion costume workshop class course lesson mentor students teachers children families seniors
neighbourhood village island coast mountain forest park playground allotment farm kitchen bakery
cafe market shop bicycle repair clothing furniture wood metal glass paper ink press publisher
magazine newsletter website platform network server database accessibility translation subtitles
language english spanish french german italian polish arabic chinese japanese korean portuguese
ocean beach lake wildlife birds bees otters trees flowers seeds compost solar energy climate
recycling plastic waste cleanup survey sensor microscope telescope laboratory experiment fieldwork
archive museum exhibition residency collective cooperative charity nonprofit volunteer volunteers
event meetup conference hackathon jam tournament league match team club society circle choirs
stage theater cinema screening premiere trailer script screenplay director actors crew editing
sound mixing mastering producer label release launch preorder edition hardback paperback ebook
audiobook illustration illustrator artist artists painter photographer writer poet composer
musician singer dancer filmmaker developer designer researcher scientist engineer maker makers
open source free independent indie small handmade limited first second third final annual monthly
weekly summer winter spring autumn night morning evening weekend holiday journey travel road
train ferry boat harbour bridge tunnel station square tower lighthouse castle church hall barn
warehouse factory workshop garage rooftop balcony courtyard basement attic cellar cabin tent
portrait landscape abstract minimal colour colours light shadow analog digital pixel retro vintage
modern classic future ancient hidden lost forgotten secret wild quiet loud bright dark golden
silver green blue red yellow purple black white orange pink grey brown crimson amber emerald
ivory indigo scarlet violet cobalt ochre sienna umber teal turquoise magenta maroon olive copper
bronze marble granite clay linen cotton wool silk leather velvet denim lace feather sequin
candle lantern mirror window doorway staircase fountain statue monument memorial plaque bench
compass atlas almanac chronicle diary journal letter postcard stamp ticket poster flyer banner
badge sticker patch button pin medal trophy ribbon certificate scholarship grant bursary
apprentice internship fellowship sabbatical pilgrimage expedition voyage odyssey quest saga
legend myth fable ballad sonnet haiku limerick anthology memoir biography essay manifesto
treatise pamphlet broadsheet gazette bulletin almanack periodical quarterly journalism reporter
interview oral testimony heritage tradition ritual ceremony harvest solstice equinox carnival
parade procession pageant masquerade cabaret vaudeville circus juggler acrobat puppet marionette
clown magician illusion riddle puzzle chess checkers backgammon dominoes mahjong crossword
sudoku roguelike platformer shooter simulator sandbox multiplayer leaderboard speedrun emulator
cartridge arcade joystick console handheld soundtrack chiptune synthwave ambient drone techno
house disco funk soul gospel blues reggae ska dub calypso samba tango flamenco fado klezmer
polka bluegrass ragtime swing bebop fusion opera operetta oratorio cantata madrigal motet
requiem symphony concerto sonata etude nocturne prelude fugue overture serenade lullaby
`;

export const VOCABULARY: string[] = [...new Set(WORDS.split(/\s+/).filter(Boolean))];
