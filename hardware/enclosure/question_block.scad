// The Question Block: the companion's enclosure, our own and parametric.
//
// Two parts, each printable without supports on a 220 mm bed:
//   body  the block: four walls and the top, printed upside down (its top on the bed);
//   lid   the bottom: the speaker's grille and bosses, the Pi's and the amplifier's
//         standoffs, printed flat (its outside on the bed). It sits `feet` up inside the
//         walls, whose corners stand on the table: the speaker fires down between them.
// `make enclosure` renders each part of each parameter set (question_block.json) to STL
// and a PNG preview; tests/test_enclosure.py checks the meshes against these numbers.
//
//   openscad -p question_block.json -P button30-pi-inside -D 'part="body"' \
//            -o body.stl question_block.scad

part = "assembly";        // body, lid or assembly (both, the lid below, for a look)

/* [The block] */
size = 100;               // outer edge of the cube, mm
wall = 2.4;               // the side walls (six lines of a 0.4 mm nozzle)
top = 3.2;                // the top plate
corner = 3;               // radius of the rounded vertical edges
lid = "screw";            // screw: four M3 screws into the corner posts; snap: four clips
lid_plate = 3.2;          // the lid's plate
feet = 4;                 // the walls' corners lift the lid off the table (the speaker
                          // fires down, out through the gaps between them)

/* [The button] */
button = 30;              // 24 or 30: the snap-in arcade button's panel hole
button_panel = 3;         // the thickest panel its snap-in clips take (see its datasheet)
button_room = 42;         // kept clear under the top for its body and microswitch

/* [The speaker] */
speaker = 40;             // speaker diameter
speaker_depth = 20;       // its height from the grille to the back of its magnet
speaker_screws = 45;      // diagonal of its four screw holes (square frame); 0: no bosses
grille_hole = 2.5;        // the grille's holes

/* [The Pi] */
pi_inside = true;         // a Pi Zero 2 W on standoffs in the lid; false: the Pi outside,
                          // only the button and the speaker in the block (a cable exit)
pi_board = [65, 30];      // the Pi Zero 2 W's board
pi_holes = [58, 23];      // its M2.5 hole pattern
pi_standoff = 5;          // height of its standoffs above the lid
service = true;           // with the Pi inside: the microSD card reachable and a USB power
                          // inlet through the wall
pi_sd_y = 16.9;           // the microSD slot's centre from the board's lower long edge
pi_power_x = 54;          // the power micro-USB's centre from the board's left edge

/* [The amplifier] */
amp_board = [18, 19];     // the MAX98357A breakout's board (measure yours)
amp_holes = [[2.5, 16.5], [15.5, 16.5]];  // its mounting holes on the board (measure yours);
                          // [] for none: it sits in a cradle

/* [Light and screen] */
led = 5;                  // the status LED's hole in the top (a 5 mm LED or a light pipe); 0: none
screen = false;           // a window for a small screen in the front wall
screen_window = [27, 15]; // the window (a 0.96" OLED's viewing area)

/* [Details] */
question_depth = 1.0;     // the "?" engraved in each wall
rivet = 3;                // the corner rivets' radius (raised 1 mm, 45 degree sides)
clearance = 0.3;          // between printed parts that slide together
$fn = 48;

eps = 0.01;
inner = size - 2 * wall;
height = size;            // the body is the whole cube; the lid sits inside it
floor_z = feet + lid_plate;  // the lid's top, from the table: where the parts stand
post = 7;                 // the corner posts' width
m3_tap = 2.6;             // an M3 screw's hole in a post (self-tapping into plastic)
m3_clear = 3.4;
m25_tap = 2.2;
boss = 4;                 // the speaker's bosses: its frame rests on them
speaker_seat = speaker_screws > 0 ? boss : 0;  // the speaker's front above the lid

// -- placements (echoed for tests/test_enclosure.py) ------------------------------------------

pi_at = [-pi_board[0] / 2, -inner / 2 + 8];            // the Pi board's lower left corner
speaker_at = [0, inner / 2 - speaker / 2 - 4];          // the speaker's centre
amp_at = [inner / 2 - amp_board[0] - 5, pi_at[1] + pi_board[1] + 3];  // beside the speaker

echo(str("ENCLOSURE ", "{\"size\": ", size, ", \"height\": ", height, ", \"wall\": ", wall,
         ", \"top\": ", top, ", \"button\": ", button, ", \"panel\": ",
         min(top, button_panel), ", \"lid_plate\": ", lid_plate, ", \"feet\": ", feet,
         ", \"pi_inside\": ", pi_inside, ", \"pi\": [", pi_at[0], ", ", pi_at[1], ", ",
         pi_board[0], ", ", pi_board[1], ", ", pi_standoff, "]",
         ", \"speaker\": [", speaker_at[0], ", ", speaker_at[1], ", ", speaker, ", ",
         speaker_depth, ", ", speaker_seat, "]}"));

// -- the block's look --------------------------------------------------------------------------

module rounded_square(w, d, r) {
    offset(r) square([w - 2 * r, d - 2 * r], center = true);
}

// The "?" as our own outline (no font needed): a hook of a ring, a stem and a dot,
// `h` tall, centred on the origin.
module question_mark(h) {
    s = h / 10;
    union() {
        translate([0, 2.2 * s]) difference() {
            circle(r = 2.8 * s);
            circle(r = 1.4 * s);
            translate([-3 * s, -3.2 * s]) square([3 * s, 3.2 * s]);
        }
        translate([-0.7 * s, -1.4 * s]) square([1.4 * s, 2.4 * s]);
        translate([0, -3.8 * s]) circle(r = 0.85 * s);
    }
}

// A rivet: raised 1 mm with 45 degree sides (no overhang steeper than that on a wall).
module rivet_at(x, z) {
    translate([x, eps, z]) rotate([90, 0, 0]) cylinder(h = 1 + eps, r1 = rivet, r2 = rivet - 1);
}

// What one face carries, on the plane y = 0 facing -y (the wall's outside).
module face_relief() {
    m = rivet + 4;
    for (x = [-size / 2 + m, size / 2 - m], z = [m, height - m]) rivet_at(x, z);
}

module face_engraving() {
    translate([0, question_depth - eps, height / 2 + 2]) rotate([90, 0, 0])
        linear_extrude(question_depth + eps) question_mark(size * 0.45);
}

// -- the body ----------------------------------------------------------------------------------

module shell() {
    difference() {
        linear_extrude(height) rounded_square(size, size, corner);
        translate([0, 0, -eps]) linear_extrude(height - top + eps)
            rounded_square(inner, inner, max(0.5, corner - wall));
    }
}

module faces(sides = [0, 90, 180, 270]) {  // 0: the front (y = -size / 2)
    for (a = sides) rotate([0, 0, a]) translate([0, -size / 2, 0]) children();
}

module corner_posts() {
    for (sx = [-1, 1], sy = [-1, 1])
        translate([sx * (inner / 2 - post / 2), sy * (inner / 2 - post / 2), 0]) difference() {
            // from the lid's plate up to the top
            translate([-post / 2, -post / 2, floor_z]) cube([post, post, height - top -
                                                              floor_z + eps]);
            if (lid == "screw") translate([0, 0, floor_z - eps]) cylinder(h = 12, d = m3_tap);
        }
}

module snap_notches() {  // the lid's clips click into these, on the walls' insides
    if (lid == "snap")
        for (a = [0, 90, 180, 270]) rotate([0, 0, a])
            translate([-6, -inner / 2 - 1, floor_z + 3.2]) cube([12, 1 + eps, 2.6]);
}

module top_openings() {
    translate([0, 0, height - top - eps]) cylinder(h = top + 2 * eps, d = button);
    if (top > button_panel)  // thinned from inside to the panel its clips take
        translate([0, 0, -eps]) cylinder(h = height - button_panel + eps, d = button + 10);
    if (led > 0)
        translate([size / 2 - 14, size / 2 - 14, height - top - eps])
            cylinder(h = top + 2 * eps, d = led);
}

// Openings in the walls reach the bottom edge: printed upside down they are open at the top,
// so nothing overhangs.
module wall_openings() {
    z_board = floor_z + pi_standoff;  // the Pi board's underside, from the table
    if (pi_inside && service) {
        // the microSD card, at the Pi's left end
        translate([-size / 2 - eps, pi_at[1] + pi_sd_y - 7, -eps])
            cube([wall + 2 * eps, 14, z_board + 4]);
        // the power micro-USB, on the Pi's lower long edge
        translate([pi_at[0] + pi_power_x - 6, -size / 2 - eps, -eps])
            cube([12, wall + 2 * eps, z_board + 6]);
    }
    if (!pi_inside)  // the button's and the speaker's wires to the Pi outside
        translate([-6, size / 2 - wall - eps, -eps]) cube([12, wall + 2 * eps, 8]);
    // the gaps between the corner feet, under the lid: the speaker's sound goes out here
    for (a = [0, 90, 180, 270]) rotate([0, 0, a])
        translate([-size / 2 + 16, -size / 2 - eps, -eps]) cube([size - 32, wall + 2 * eps,
                                                                 feet]);
    if (screen)
        translate([-screen_window[0] / 2, -size / 2 - eps, height / 2])
            cube([screen_window[0], wall + 2 * eps, screen_window[1]]);
}

module body() {
    difference() {
        union() {
            shell();
            faces() face_relief();
            corner_posts();
        }
        faces(screen ? [90, 180, 270] : [0, 90, 180, 270]) face_engraving();  // a screen
                                                  // takes the front's "?"
        top_openings();
        wall_openings();
        snap_notches();
    }
}

// -- the lid -----------------------------------------------------------------------------------

module lid_plate_shape() {
    rounded_square(inner - 2 * clearance, inner - 2 * clearance, max(0.5, corner - wall));
}

module standoff(h, hole, od = 5.5) {
    difference() {
        cylinder(h = h, d = od);
        translate([0, 0, 1]) cylinder(h = h, d = hole);
    }
}

module lid_part() {
    difference() {
        union() {
            linear_extrude(lid_plate) lid_plate_shape();  // it goes in between the walls
            translate([0, 0, lid_plate - eps]) lid_fittings();
        }
        // the grille under the speaker
        translate([speaker_at[0], speaker_at[1], -eps]) grille();
        if (lid == "screw")
            for (sx = [-1, 1], sy = [-1, 1])
                translate([sx * (inner / 2 - post / 2), sy * (inner / 2 - post / 2), -eps])
                    cylinder(h = lid_plate + 2 * eps, d = m3_clear);  // its head stays
                                                  // under the plate, above the table
    }
}

module grille() {
    r = speaker / 2 - 3;
    for (ring = [0 : 4 : r], k = [0 : max(1, floor(2 * PI * ring / 4)) - 1]) {
        n = max(1, floor(2 * PI * ring / 4));
        rotate([0, 0, 360 * k / n]) translate([ring, 0, 0])
            cylinder(h = lid_plate + 2 * eps, d = grille_hole, $fn = 12);
    }
}

module lid_fittings() {
    // the speaker: a ring to centre it, bosses for its frame's screws
    translate([speaker_at[0], speaker_at[1], 0]) difference() {
        cylinder(h = 2, d = speaker + 4);
        translate([0, 0, -eps]) cylinder(h = 2 + 2 * eps, d = speaker + 2 * clearance);
    }
    if (speaker_screws > 0)
        for (a = [45 : 90 : 315])
            translate([speaker_at[0], speaker_at[1], 0]) rotate([0, 0, a])
                translate([speaker_screws / 2, 0, 0]) standoff(boss, m25_tap);
    if (pi_inside) {
        for (x = [0, pi_holes[0]], y = [0, pi_holes[1]])
            translate([pi_at[0] + (pi_board[0] - pi_holes[0]) / 2 + x,
                       pi_at[1] + (pi_board[1] - pi_holes[1]) / 2 + y, 0])
                standoff(pi_standoff, m25_tap);
        amp_mount();
    }
    if (lid == "snap")
        for (a = [0, 90, 180, 270]) rotate([0, 0, a])
            translate([-5, -inner / 2 + clearance, 0]) snap_clip();
}

module amp_mount() {
    translate([amp_at[0], amp_at[1], 0])
        if (len(amp_holes) > 0) {
            for (h = amp_holes) translate([h[0], h[1], 0]) standoff(4, m25_tap, 5);
        } else {
            for (x = [-1.5, amp_board[0] + 0.5], y = [-1.5, amp_board[1] + 0.5])
                translate([x, y, 0]) cube([1, 1, 4]);
        }
}

// A clip on the lid's edge: a spring arm with a 45 degree catch at its top (no overhang).
module snap_clip() {
    cube([10, 1.4, 6]);
    rotate([90, 0, 90]) linear_extrude(10)  // the catch, toward the wall: (y, z) on the clip
        polygon([[0, 3.4], [-1, 4.4], [0, 5.4]]);
}

// -- the parts ---------------------------------------------------------------------------------

if (part == "body") {
    translate([0, 0, height]) rotate([180, 0, 0]) body();  // upside down: as it is printed
} else if (part == "lid") {
    lid_part();
} else {
    body();
    translate([0, 0, feet]) lid_part();
}
